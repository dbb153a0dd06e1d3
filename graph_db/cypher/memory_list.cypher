// Memories of one namespace, newest first; $labels picks the blocks.
CALL () {
  MATCH (n:Episode {ns: $ns}) WHERE 'Episode' IN $labels RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) WHERE 'Fact' IN $labels RETURN n
}
WITH n
ORDER BY n.created_at DESC, n.id
SKIP $offset
LIMIT $limit
RETURN n {.*, embedding: null, vecs: null, terms: null} AS memory,
       labels(n)[0] AS label
