// (:Episode)-[:MENTIONS {role}]->(:Entity): ties the episodic block to entities.
UNWIND $rows AS r
MATCH (a:Episode {ns: $ns, id: r.a})
MATCH (b:Entity {ns: $ns, id: r.b})
MERGE (a)-[x:MENTIONS]->(b)
SET x += r.props
RETURN count(x) AS linked
