// Remove NEXT links that an insertion in the middle of a session replaces.
UNWIND $rows AS r
MATCH (a:Episode {id: r.a})-[x:NEXT]->(b:Episode {id: r.b})
WHERE a.ns = $ns AND b.ns = $ns
DELETE x
RETURN count(*) AS unlinked
