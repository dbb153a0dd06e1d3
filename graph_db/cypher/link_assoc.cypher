// Liquid edges between memories of either block: [:ASSOC {w, fired_at, fired_count, permanent}].
// Nodes are found by id (unique index) and then checked against the namespace. Both ends are
// due for a maintenance visit (vitals_due 0: at the next pass), the source for a prune check
// (expire_at 0: the edge's decay is not computed here); edges_at: when their edges changed.
UNWIND $rows AS r
// one edge per pair, stored from the smaller id to the larger
WITH r, CASE WHEN r.a < r.b THEN r.a ELSE r.b END AS lo,
     CASE WHEN r.a < r.b THEN r.b ELSE r.a END AS hi
OPTIONAL MATCH (ea:Episode {id: lo})
WHERE ea.ns = $ns
OPTIONAL MATCH (fa:Fact {id: lo})
WHERE fa.ns = $ns
WITH r, hi, coalesce(ea, fa) AS a
OPTIONAL MATCH (eb:Episode {id: hi})
WHERE eb.ns = $ns
OPTIONAL MATCH (fb:Fact {id: hi})
WHERE fb.ns = $ns
WITH r, a, coalesce(eb, fb) AS b
WHERE a IS NOT NULL AND b IS NOT NULL
MERGE (a)-[x:ASSOC]->(b)
SET x += r.props, a.vitals_due = 0.0, b.vitals_due = 0.0, a.expire_at = 0.0,
    a.edges_at = coalesce(r.props.created_at, r.props.w_at, 0.0),
    b.edges_at = coalesce(r.props.created_at, r.props.w_at, 0.0)
// edges: each as it is now, for this process's read index (bolt.APPLIED)
RETURN count(x) AS linked, collect([a.id, b.id, x.w, x.w_at, x.fired_at, x.permanent]) AS edges
