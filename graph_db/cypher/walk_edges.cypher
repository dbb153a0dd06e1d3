// One step of the recall walk: the memories next to each of $ids over liquid (ASSOC) and
// structural (NEXT, DERIVED_FROM) edges, with what the caller needs to weigh the edge and
// to rank the memory reached (row).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH id, coalesce(e, f) AS m
WHERE m IS NOT NULL
MATCH (m)-[r:ASSOC|NEXT|DERIVED_FROM]-(o)
WHERE o.ns = $ns
RETURN id AS source, o.id AS id, type(r) AS edge, r.w AS w, r.w_at AS w_at,
       r.fired_at AS fired_at, coalesce(r.permanent, false) AS permanent,
       o {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .importance,
          .last_access, .vecs, label: labels(o)[0],
          n_terms: size(split(coalesce(o.terms, ''), ' '))} AS row
