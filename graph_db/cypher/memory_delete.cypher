// Delete one memory with all its edges; returns the entities it touched (maybe orphaned now),
// whose degree (links to memories, used by the walk) drops by one.
OPTIONAL MATCH (e:Episode {id: $id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: $id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
OPTIONAL MATCH (m)-[:MENTIONS|ABOUT]->(x:Entity)
WHERE x.ns = $ns
SET x.degree = coalesce(x.degree, 1) - 1
WITH m, collect(x.id) AS entities
DETACH DELETE m
RETURN entities
