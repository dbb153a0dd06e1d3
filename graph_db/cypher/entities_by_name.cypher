// Entities whose normalised name is one of $names.
UNWIND $names AS name
MATCH (n:Entity {name: name})
WHERE n.ns = $ns
RETURN name, n.id AS id
