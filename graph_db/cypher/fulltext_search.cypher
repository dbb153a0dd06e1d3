// Full-text hits of one label as ids and scores; global index, filtered to the namespace.
CALL db.index.fulltext.queryNodes($index, $query) YIELD node, score
WITH node, score
WHERE node.ns = $ns
RETURN node.id AS id, score
ORDER BY score DESC
LIMIT $k
