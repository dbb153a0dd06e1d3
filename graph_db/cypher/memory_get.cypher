// Memories (episodes or facts) by id, with their embedding when asked.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {ns: $ns, id: id})
OPTIONAL MATCH (f:Fact {ns: $ns, id: id})
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN m {.*, embedding: CASE WHEN $with_embedding THEN m.embedding ELSE null END} AS memory,
       labels(m)[0] AS label
