// Neo4j + GDS only: the core number of every memory in the projection $graph (made by
// kcore_gds_project from the memories of one namespace: no other node is in it).
CALL gds.kcore.stream($graph) YIELD nodeId, coreValue
RETURN gds.util.asNode(nodeId).id AS id, coreValue AS core
