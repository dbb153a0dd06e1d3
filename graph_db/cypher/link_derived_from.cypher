// (:Fact)-[:DERIVED_FROM]->(:Episode): the turn a fact was learned from.
UNWIND $rows AS r
MATCH (a:Fact {ns: $ns, id: r.a})
MATCH (b:Episode {ns: $ns, id: r.b})
MERGE (a)-[x:DERIVED_FROM]->(b)
SET x += r.props
RETURN count(x) AS linked
