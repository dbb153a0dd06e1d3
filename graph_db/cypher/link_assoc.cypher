// Liquid edges between memories of either block: [:ASSOC {w, fired_at, fired_count, permanent}].
// Nodes are found by id (unique index) and then checked against the namespace.
UNWIND $rows AS r
OPTIONAL MATCH (ea:Episode {id: r.a})
WHERE ea.ns = $ns
OPTIONAL MATCH (fa:Fact {id: r.a})
WHERE fa.ns = $ns
WITH r, coalesce(ea, fa) AS a
OPTIONAL MATCH (eb:Episode {id: r.b})
WHERE eb.ns = $ns
OPTIONAL MATCH (fb:Fact {id: r.b})
WHERE fb.ns = $ns
WITH r, a, coalesce(eb, fb) AS b
WHERE a IS NOT NULL AND b IS NOT NULL
MERGE (a)-[x:ASSOC]->(b)
SET x += r.props
RETURN count(x) AS linked
