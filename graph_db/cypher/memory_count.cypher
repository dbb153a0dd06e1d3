// Number of memories (episodes and facts) in $ns.
CALL {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
RETURN count(n) AS memories
