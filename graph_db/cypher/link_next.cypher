// (:Episode)-[:NEXT]->(:Episode) in time order within a session.
UNWIND $rows AS r
MATCH (a:Episode {ns: $ns, id: r.a})
MATCH (b:Episode {ns: $ns, id: r.b})
MERGE (a)-[x:NEXT]->(b)
SET x += r.props
RETURN count(x) AS linked
