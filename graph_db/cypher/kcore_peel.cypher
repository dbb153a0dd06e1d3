// One round of k-core peeling over ASSOC edges: unpeeled memories of $ns with fewer than $k
// unpeeled neighbours get core = $k - 1. Repeat until a round peels none, then k + 1;
// memories never peeled when no k is left are in the innermost core.
CALL {
  MATCH (n:Episode {ns: $ns}) WHERE n.core IS NULL RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) WHERE n.core IS NULL RETURN n
}
OPTIONAL MATCH (n)-[:ASSOC]-(m)
WHERE m.ns = $ns AND m.core IS NULL
WITH n, count(DISTINCT m) AS degree
WHERE degree < $k
SET n.core = $k - 1
RETURN count(n) AS peeled
