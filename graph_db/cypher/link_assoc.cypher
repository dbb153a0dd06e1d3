// Liquid edges between memories of either block: [:ASSOC {w, fired_at, fired_count, permanent}].
UNWIND $rows AS r
OPTIONAL MATCH (ea:Episode {ns: $ns, id: r.a})
OPTIONAL MATCH (fa:Fact {ns: $ns, id: r.a})
WITH r, coalesce(ea, fa) AS a
OPTIONAL MATCH (eb:Episode {ns: $ns, id: r.b})
OPTIONAL MATCH (fb:Fact {ns: $ns, id: r.b})
WITH r, a, coalesce(eb, fb) AS b
WHERE a IS NOT NULL AND b IS NOT NULL
MERGE (a)-[x:ASSOC]->(b)
SET x += r.props
RETURN count(x) AS linked
