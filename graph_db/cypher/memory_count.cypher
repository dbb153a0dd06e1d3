// Number of memories (episodes and facts) in $ns (counted inside each branch: see stats_edges).
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN count(n) AS memories
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN count(n) AS memories
}
RETURN sum(memories) AS memories
