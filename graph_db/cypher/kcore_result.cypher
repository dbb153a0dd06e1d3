// Core numbers of $ns's memories after peeling.
CALL {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
RETURN n.id AS id, n.core AS core
