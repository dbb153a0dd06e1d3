// (:Fact)-[:ABOUT {role: subject|object}]->(:Entity): ties the semantic block to entities.
// Nodes are found by id (unique index) and then checked against the namespace.
UNWIND $rows AS r
MATCH (a:Fact {id: r.a})
WHERE a.ns = $ns
MATCH (b:Entity {id: r.b})
WHERE b.ns = $ns
MERGE (a)-[x:ABOUT]->(b)
SET x += r.props
RETURN count(x) AS linked
