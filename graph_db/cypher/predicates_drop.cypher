// What a namespace declared and learned about its predicates (the namespace is deleted).
MATCH (p:Predicate {ns: $ns})
DETACH DELETE p
RETURN count(*) AS deleted
