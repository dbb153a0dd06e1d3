// What recall needs to rank and filter memories, by id, for those its searches and walk
// steps did not bring with them: named properties only (a map projection of every property
// would also read the float lists, the slow part; the vectors come packed in one string, see
// graph_db/vecpack.py). The few memories returned are then fetched whole with memory_get.
// $vecs: whether rows carry the packed vectors (not when the read index holds them).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN m.id AS id,
       m {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .predicate, .importance, .asks,
           .source_episode_id, .terms,
          .last_access, vecs: CASE WHEN $vecs THEN m.vecs END, label: labels(m)[0]} AS row
