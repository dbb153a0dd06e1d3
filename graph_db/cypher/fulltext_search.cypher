// Full-text hits of one label; global index, filtered to the namespace like vector_search.
CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score
WITH node, score
WHERE node.ns = $ns
RETURN node {.*, embedding: null} AS memory, labels(node)[0] AS label, score
ORDER BY score DESC
LIMIT $k
