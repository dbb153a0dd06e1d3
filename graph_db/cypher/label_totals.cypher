// Nodes per label in the whole store (to size the over-fetch of global indexes).
CALL () {
  MATCH (n:Episode) RETURN 'Episode' AS label, count(n) AS total
  UNION ALL
  MATCH (n:Fact) RETURN 'Fact' AS label, count(n) AS total
  UNION ALL
  MATCH (n:Entity) RETURN 'Entity' AS label, count(n) AS total
}
RETURN label, total
