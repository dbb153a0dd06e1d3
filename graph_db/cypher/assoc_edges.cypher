// Every liquid (ASSOC) edge of $ns as a pair of ids (k-core decomposition reads them once).
CALL {
  MATCH (a:Episode {ns: $ns})-[:ASSOC]->(b) RETURN a, b
  UNION ALL
  MATCH (a:Fact {ns: $ns})-[:ASSOC]->(b) RETURN a, b
}
WITH a, b
WHERE b.ns = $ns
RETURN a.id AS a, b.id AS b
