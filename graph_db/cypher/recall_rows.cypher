// What recall needs to score and filter its candidates, by id: named properties only (a
// map projection of every property would also read the vectors, the slow part). The few
// memories returned are then fetched whole with memory_get.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN m.id AS id, labels(m)[0] AS label, m.text AS text, m.session_id AS session_id,
       m.ts AS ts, m.created_at AS created_at, m.valid_from AS valid_from,
       m.valid_to AS valid_to, m.importance AS importance, m.last_access AS last_access
