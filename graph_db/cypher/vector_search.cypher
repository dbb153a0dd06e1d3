// Approximate nearest memories of one label for each of $vectors. Indexes are global per
// label: each asks for $fetch hits and keeps this namespace's (the caller keeps the best k
// and widens $fetch until k are found or the index is exhausted).
UNWIND range(0, size($vectors) - 1) AS i
CALL db.index.vector.queryNodes($index, $fetch, $vectors[i]) YIELD node, score
WITH i, node, score
WHERE node.ns = $ns
RETURN i, node {.*, embedding: null} AS memory, labels(node)[0] AS label, score
ORDER BY i, score DESC
