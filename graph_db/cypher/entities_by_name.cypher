// Entities whose normalised name is one of $names.
UNWIND $names AS name
MATCH (n:Entity {ns: $ns, name: name})
RETURN name, n.id AS id
