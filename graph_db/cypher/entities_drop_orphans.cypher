// Entities that no memory refers to any more are deleted (nothing left behind).
UNWIND $ids AS id
MATCH (n:Entity {id: id})
WHERE n.ns = $ns AND NOT (n)<-[:MENTIONS|ABOUT]-()
DETACH DELETE n
RETURN count(*) AS dropped
