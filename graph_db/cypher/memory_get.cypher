// Memories (episodes or facts) by id, with their embedding when asked.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN m {.*, embedding: CASE WHEN $with_embedding THEN m.embedding ELSE null END,
          vecs: null, terms: null} AS memory,
       labels(m)[0] AS label
