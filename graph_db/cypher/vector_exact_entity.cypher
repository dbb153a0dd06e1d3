// Exact nearest entitys of one namespace for each of $vectors, as ids and scores (a namespace
// that is a small share of the global index is searched this way: no tenant starves another).
UNWIND range(0, size($vectors) - 1) AS i
MATCH (n:Entity {ns: $ns})
WITH i, n.id AS id, vector.similarity.cosine(n.embedding, $vectors[i]) AS score
ORDER BY i, score DESC
WITH i, collect(id)[0..$k] AS ids, collect(score)[0..$k] AS scores
UNWIND range(0, size(ids) - 1) AS j
RETURN i, ids[j] AS id, scores[j] AS score
