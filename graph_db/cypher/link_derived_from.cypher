// (:Fact)-[:DERIVED_FROM]->(:Episode): the turn a fact was learned from.
// Nodes are found by id (unique index) and then checked against the namespace.
UNWIND $rows AS r
MATCH (a:Fact {id: r.a})
WHERE a.ns = $ns
MATCH (b:Episode {id: r.b})
WHERE b.ns = $ns
MERGE (a)-[x:DERIVED_FROM]->(b)
SET x += r.props
// edges: for this process's read index (bolt.APPLIED)
RETURN count(x) AS linked, collect([a.id, b.id]) AS edges
