// Every edge of one namespace with its properties (snapshots).
CALL () {
  MATCH (a:Episode {ns: $ns})-[r]->(b) RETURN a, r, b
  UNION ALL
  MATCH (a:Fact {ns: $ns})-[r]->(b) RETURN a, r, b
}
RETURN type(r) AS type, a.id AS a, b.id AS b, properties(r) AS props
ORDER BY type, a, b
