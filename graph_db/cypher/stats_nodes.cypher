// Node counts per label in one namespace.
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN 'Episode' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN 'Fact' AS label, count(n) AS count
  UNION ALL
  MATCH (n:Entity {ns: $ns}) RETURN 'Entity' AS label, count(n) AS count
}
RETURN label, count
