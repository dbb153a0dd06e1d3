// Every memory of $ns with its stored core number (k-core decomposition writes only changes).
CALL {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
RETURN n.id AS id, n.core AS core
