// (:Fact)-[:ABOUT {role: subject|object}]->(:Entity): ties the semantic block to entities.
// Entity.degree counts its links to memories (the walk skips hubs by it).
// Nodes are found by id (unique index) and then checked against the namespace.
UNWIND $rows AS r
MATCH (a:Fact {id: r.a})
WHERE a.ns = $ns
MATCH (b:Entity {id: r.b})
WHERE b.ns = $ns
MERGE (a)-[x:ABOUT]->(b)
ON CREATE SET b.degree = coalesce(b.degree, 0) + 1
SET x += r.props
// edges: for this process's read index (bolt.APPLIED)
RETURN count(x) AS linked, collect([a.id, b.id]) AS edges
