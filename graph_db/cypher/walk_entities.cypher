// The entity step of the recall walk from $frontier (id, act): memories sharing an entity
// with each, through entities linked to at most $max_degree memories (hubs such as the user
// tie everything), weighted $entity_w / sqrt(entity degree), where act x w stays at or above
// $stop; row as in walk_edges (null for the $known ids).
// $rows: whether rows are sent at all, $vecs: whether they carry the packed vectors (not
// when the read index holds them).
UNWIND $frontier AS f
OPTIONAL MATCH (e:Episode {id: f.id})
WHERE e.ns = $ns
OPTIONAL MATCH (x:Fact {id: f.id})
WHERE x.ns = $ns
WITH f, coalesce(e, x) AS m
WHERE m IS NOT NULL
MATCH (m)-[:MENTIONS|ABOUT]->(en:Entity)
WHERE en.ns = $ns AND coalesce(en.degree, 0) <= $max_degree
WITH f, en, $entity_w / sqrt(toFloat(CASE WHEN en.degree > 1 THEN en.degree ELSE 1 END)) AS w
WHERE f.act * w >= $stop
MATCH (en)<-[:MENTIONS|ABOUT]-(o)
WHERE o.ns = $ns AND o.id <> f.id
RETURN f.id AS source, o.id AS id, en.id AS entity, w,
       CASE WHEN NOT $rows OR o.id IN $known THEN null ELSE
         o {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .predicate, .importance, .asks,
           .source_episode_id, .terms,
            .last_access, vecs: CASE WHEN $vecs THEN o.vecs END, label: labels(o)[0]} END AS row
