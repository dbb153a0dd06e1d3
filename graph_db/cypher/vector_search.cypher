// Approximate nearest nodes of one label for each of $vectors: ids, scores and, if
// $with_rows, what recall needs to rank them (row; null properties for entities). Indexes
// are global per label: each asks for $fetch hits and keeps this namespace's; the caller
// widens $fetch until k are found or the index is exhausted.
// $vecs: whether rows carry the packed vectors (not when the read index holds them).
UNWIND range(0, size($vectors) - 1) AS i
CALL db.index.vector.queryNodes($index, $fetch, $vectors[i]) YIELD node, score
WITH i, node, score
WHERE node.ns = $ns
RETURN i, node.id AS id, score,
       CASE WHEN $with_rows THEN
         node {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .predicate, .importance, .asks,
           .source_episode_id, .terms,
               .last_access, vecs: CASE WHEN $vecs THEN node.vecs END, label: labels(node)[0]} END AS row
ORDER BY i, score DESC
