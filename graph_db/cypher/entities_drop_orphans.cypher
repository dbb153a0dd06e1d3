// Entities that no memory refers to any more are deleted (nothing left behind).
UNWIND $ids AS id
MATCH (n:Entity {ns: $ns, id: id})
WHERE NOT (n)<-[:MENTIONS|ABOUT]-()
DETACH DELETE n
RETURN count(*) AS dropped
