// (:Episode)-[:MENTIONS {role}]->(:Entity): ties the episodic block to entities.
// Nodes are found by id (unique index) and then checked against the namespace.
UNWIND $rows AS r
MATCH (a:Episode {id: r.a})
WHERE a.ns = $ns
MATCH (b:Entity {id: r.b})
WHERE b.ns = $ns
MERGE (a)-[x:MENTIONS]->(b)
SET x += r.props
RETURN count(x) AS linked
