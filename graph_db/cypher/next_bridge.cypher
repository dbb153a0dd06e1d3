// Before an episode goes: link its predecessor to its successor so the session stays a chain
// (touched: both, for the read index, graph_db/backends/bolt.py).
MATCH (p:Episode)-[:NEXT]->(e:Episode {id: $id})-[:NEXT]->(n:Episode)
WHERE e.ns = $ns AND p.ns = $ns AND n.ns = $ns
MERGE (p)-[x:NEXT]->(n)
RETURN count(x) AS bridged, collect(p.id) + collect(n.id) AS touched
