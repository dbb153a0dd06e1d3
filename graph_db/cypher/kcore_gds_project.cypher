// Neo4j + GDS only (see kcore_gds_available): project the memories of $ns (Episode and Fact)
// and their ASSOC edges into the GDS catalog as graph $graph, undirected, one relationship per
// pair of memories as the Python peel counts them (no self-loops, no edge to another namespace
// or a non-memory, a pair stored in both directions once). A memory without edges is a node
// of degree 0 (core 0). edges: the ASSOC edges of $ns as assoc_edges reads them (the report).
// The caller drops $graph (kcore_gds_drop), also on error.
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
OPTIONAL MATCH (n)-[:ASSOC]->(m)
WHERE m.ns = $ns
WITH n, m, count(m) AS edges
WITH n, edges,
     CASE WHEN m <> n AND (m:Episode OR m:Fact) AND (n.id < m.id OR NOT (m)-[:ASSOC]->(n))
          THEN m END AS m
WITH gds.graph.project($graph, n, m, null, {undirectedRelationshipTypes: ['*']}) AS g,
     sum(edges) AS edges
RETURN g.nodeCount AS nodes, edges
