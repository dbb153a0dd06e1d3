// Every memory of $ns with its stored core number (k-core decomposition writes only changes).
// Projected inside each branch: the union's rows are held in the engine's heap.
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN n.id AS id, n.core AS core
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n.id AS id, n.core AS core
}
RETURN id, core
