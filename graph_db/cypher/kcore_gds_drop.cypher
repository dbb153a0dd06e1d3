// Neo4j + GDS only: remove the projection $graph from the GDS catalog (no error if it is gone).
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName
