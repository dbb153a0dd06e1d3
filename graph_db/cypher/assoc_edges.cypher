// Every liquid (ASSOC) edge of $ns as a pair of ids (k-core decomposition reads them once).
// Ids are projected inside each branch: the union's rows are held in the engine's heap.
CALL () {
  MATCH (a:Episode {ns: $ns})-[:ASSOC]->(b) WHERE b.ns = $ns RETURN a.id AS a, b.id AS b
  UNION ALL
  MATCH (a:Fact {ns: $ns})-[:ASSOC]->(b) WHERE b.ns = $ns RETURN a.id AS a, b.id AS b
}
RETURN a, b
