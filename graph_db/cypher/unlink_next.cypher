// Remove NEXT links that an insertion in the middle of a session replaces.
UNWIND $rows AS r
MATCH (a:Episode {id: r.a})-[x:NEXT]->(b:Episode {id: r.b})
WHERE a.ns = $ns AND b.ns = $ns
DELETE x
// edges: for this process's read index (bolt.APPLIED)
RETURN count(*) AS unlinked, collect([a.id, b.id]) AS edges
