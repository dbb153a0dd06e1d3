// Approximate nearest memories of one label for each of $vectors, as ids and scores (callers
// fetch the few they keep). Indexes are global per label: each asks for $fetch hits and keeps
// this namespace's; the caller widens $fetch until k are found or the index is exhausted.
UNWIND range(0, size($vectors) - 1) AS i
CALL db.index.vector.queryNodes($index, $fetch, $vectors[i]) YIELD node, score
WITH i, node, score
WHERE node.ns = $ns
RETURN i, node.id AS id, score
ORDER BY i, score DESC
