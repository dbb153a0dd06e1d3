// Remove NEXT links that an insertion in the middle of a session replaces.
UNWIND $rows AS r
MATCH (a:Episode {ns: $ns, id: r.a})-[x:NEXT]->(b:Episode {ns: $ns, id: r.b})
DELETE x
RETURN count(*) AS unlinked
