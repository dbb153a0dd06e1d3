// Recall candidates by id: their properties without vectors or full-text terms (vectors come
// from the caller's cache or recall_vectors: shipping them is the slow part).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN m {.*, embedding: null, views: null, ctx_embedding: null, terms: null} AS memory,
       labels(m)[0] AS label
