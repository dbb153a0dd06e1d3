// Exact nearest entitys of one namespace for each of $vectors (a namespace that is a small
// share of the global index is searched this way, so no tenant starves another's top-k).
UNWIND range(0, size($vectors) - 1) AS i
MATCH (n:Entity {ns: $ns})
WITH i, n, vector.similarity.cosine(n.embedding, $vectors[i]) AS score
ORDER BY i, score DESC
WITH i, collect(n)[0..$k] AS top, collect(score)[0..$k] AS scores
UNWIND range(0, size(top) - 1) AS j
WITH i, top[j] AS n, scores[j] AS score
RETURN i, n {.*, embedding: null} AS memory, 'Entity' AS label, score
