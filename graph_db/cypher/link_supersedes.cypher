// (:Fact)-[:SUPERSEDES {at, reason}]->(:Fact): history, never silently deleted.
// Nodes are found by id (unique index) and then checked against the namespace.
UNWIND $rows AS r
MATCH (a:Fact {id: r.a})
WHERE a.ns = $ns
MATCH (b:Fact {id: r.b})
WHERE b.ns = $ns
MERGE (a)-[x:SUPERSEDES]->(b)
SET x += r.props
RETURN count(x) AS linked
