// The entity step of the recall walk: memories sharing an entity with each of $ids, through
// entities linked to at most $max_degree memories (hubs such as the user tie everything).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH id, coalesce(e, f) AS m
WHERE m IS NOT NULL
MATCH (m)-[:MENTIONS|ABOUT]->(en:Entity)
WHERE en.ns = $ns AND coalesce(en.degree, 0) <= $max_degree
MATCH (en)<-[:MENTIONS|ABOUT]-(o)
WHERE o.ns = $ns AND o.id <> id
RETURN id AS source, o.id AS id, en.id AS entity, coalesce(en.degree, 1) AS degree,
       o {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .importance,
          .last_access, .vecs, label: labels(o)[0],
          n_terms: size(split(coalesce(o.terms, ''), ' '))} AS row
