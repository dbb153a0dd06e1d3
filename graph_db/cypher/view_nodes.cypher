// The memories of $ns a graph view shows: the $limit that matter most (permanent, then by
// importance, then newest), with what a node's label and style need (no vectors).
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
WITH n
ORDER BY coalesce(n.permanent, false) DESC, coalesce(n.importance, 0.0) DESC,
         n.created_at DESC, n.id
LIMIT $limit
RETURN n {.id, .text, .speaker, .subject, .predicate, .object, .importance, .permanent,
          .valid_from, .valid_to, .ts, .created_at, .core} AS memory,
       labels(n)[0] AS label
