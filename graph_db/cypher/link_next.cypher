// (:Episode)-[:NEXT]->(:Episode) in time order within a session.
// Nodes are found by id (unique index) and then checked against the namespace.
UNWIND $rows AS r
MATCH (a:Episode {id: r.a})
WHERE a.ns = $ns
MATCH (b:Episode {id: r.b})
WHERE b.ns = $ns
MERGE (a)-[x:NEXT]->(b)
SET x += r.props
// edges: for this process's read index (bolt.APPLIED)
RETURN count(x) AS linked, collect([a.id, b.id]) AS edges
