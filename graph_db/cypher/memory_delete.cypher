// Delete one memory with all its edges; returns the entities it touched (maybe orphaned now).
OPTIONAL MATCH (e:Episode {ns: $ns, id: $id})
OPTIONAL MATCH (f:Fact {ns: $ns, id: $id})
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
OPTIONAL MATCH (m)-[:MENTIONS|ABOUT]->(x:Entity {ns: $ns})
WITH m, collect(x.id) AS entities
DETACH DELETE m
RETURN entities
