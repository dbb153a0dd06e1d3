// Forget a whole namespace: every node and edge it holds, its registration and change log.
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION
  MATCH (n:Fact {ns: $ns}) RETURN n
  UNION
  MATCH (n:Entity {ns: $ns}) RETURN n
  UNION
  MATCH (n:Namespace {ns: $ns}) RETURN n
  UNION
  MATCH (n:IndexChange {ns: $ns}) RETURN n
}
DETACH DELETE n
RETURN count(*) AS deleted
