// (:Fact)-[:SUPERSEDES {at, reason}]->(:Fact): history, never silently deleted.
UNWIND $rows AS r
MATCH (a:Fact {ns: $ns, id: r.a})
MATCH (b:Fact {ns: $ns, id: r.b})
MERGE (a)-[x:SUPERSEDES]->(b)
SET x += r.props
RETURN count(x) AS linked
