// The namespace's hits among the $fetch best full-text hits of one label (global index),
// with what recall needs to rank them if $with_rows, and how many hits were seen in all.
// Bounded: common terms match most of a big store, and unbounded hits exhausted the
// engine's heap at 100k memories. The caller asks again, wider, when the index gave all it
// was asked for but too few were of this namespace. (Parallel lists: collect skips the
// nulls of other namespaces in all three alike.)
// $vecs: whether rows carry the packed vectors (not when the read index holds them).
CALL db.index.fulltext.queryNodes($index, $query, {limit: $fetch}) YIELD node, score
RETURN collect(CASE WHEN node.ns = $ns THEN node.id END) AS ids,
       collect(CASE WHEN node.ns = $ns THEN score END) AS scores,
       CASE WHEN $with_rows THEN
         collect(CASE WHEN node.ns = $ns THEN node {.valid_from, .valid_to, .ts, .created_at,
           .speaker, .subject, .predicate, .importance, .asks,
           .source_episode_id, .terms, .last_access, vecs: CASE WHEN $vecs THEN node.vecs END, label: labels(node)[0]} END) END AS rows,
       count(*) AS seen
