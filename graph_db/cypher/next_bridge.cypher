// Before an episode goes: link its predecessor to its successor so the session stays a chain
// (touched: both, for the read index, graph_db/backends/bolt.py). The episode is found
// first, alone, and each neighbour from it: as one pattern with $id in it, ArcadeDB's
// planner scanned the namespace (about 1 s at 100k memories, not 2 ms).
UNWIND [$id] AS eid
MATCH (e:Episode {id: eid})
WHERE e.ns = $ns
MATCH (p:Episode)-[:NEXT]->(e)
MATCH (e)-[:NEXT]->(n:Episode)
WHERE p.ns = $ns AND n.ns = $ns
MERGE (p)-[x:NEXT]->(n)
RETURN count(x) AS bridged, collect(p.id) + collect(n.id) AS touched
