// Every node of one namespace with all its properties (snapshots).
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Entity {ns: $ns}) RETURN n
}
RETURN labels(n)[0] AS label, properties(n) AS props
ORDER BY label, props.id
