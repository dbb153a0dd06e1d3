// Entities that no memory refers to any more are deleted (nothing left behind); gone: their
// ids, for the read index (bolt.APPLIED).
UNWIND $ids AS id
MATCH (n:Entity {id: id})
WHERE n.ns = $ns AND NOT (n)<-[:MENTIONS|ABOUT]-()
WITH n, n.id AS gone
DETACH DELETE n
RETURN count(*) AS dropped, collect(gone) AS gone
