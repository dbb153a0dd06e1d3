// Start a k-core decomposition of $ns's memory graph: every memory is unpeeled.
CALL {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
SET n.core = null
RETURN count(n) AS memories
