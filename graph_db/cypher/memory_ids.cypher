// Every memory id of $ns (episodes and facts).
CALL {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
RETURN n.id AS id
