// (:Fact)-[:ABOUT {role: subject|object}]->(:Entity): ties the semantic block to entities.
UNWIND $rows AS r
MATCH (a:Fact {ns: $ns, id: r.a})
MATCH (b:Entity {ns: $ns, id: r.b})
MERGE (a)-[x:ABOUT]->(b)
SET x += r.props
RETURN count(x) AS linked
