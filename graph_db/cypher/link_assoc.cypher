// Liquid edges between memories of either block: [:ASSOC {w, fired_at, fired_count, permanent}].
// Nodes are found by id (unique index) and then checked against the namespace. Both ends are
// due for a maintenance visit at the next pass, the source for a prune check (the edge's
// decay is not computed here): each keeps its due time if already due, else it gets the
// edge's creation time (never one value for all: see memory_cores_set); edges_at: when
// their edges changed.
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
WITH r, a, coalesce(eb, fb) AS b, coalesce(r.props.created_at, r.props.w_at, 0.0) AS t
WHERE a IS NOT NULL AND b IS NOT NULL
// the pair's edge is read once: a new edge is made with its properties (ArcadeDB then writes
// it whole, not grown by SET: see episodes_create; more keys, as a snapshot's triadic edges'
// 'born', are added after), the edge there is set; the rows name each pair once
OPTIONAL MATCH (a)-[old:ASSOC]->(b)
FOREACH (_ IN CASE WHEN old IS NULL THEN [1] ELSE [] END |
  CREATE (a)-[x:ASSOC {w: r.props.w, w_at: r.props.w_at, fired_at: r.props.fired_at,
                       fired_count: r.props.fired_count, permanent: r.props.permanent,
                       created_at: r.props.created_at}]->(b)
  SET x += r.props)
FOREACH (x IN CASE WHEN old IS NULL THEN [] ELSE [old] END | SET x += r.props)
SET a.vitals_due = CASE WHEN a.vitals_due <= t THEN a.vitals_due ELSE t END,
    b.vitals_due = CASE WHEN b.vitals_due <= t THEN b.vitals_due ELSE t END,
    a.expire_at = CASE WHEN a.expire_at <= t THEN a.expire_at ELSE t END,
    a.edges_at = t, b.edges_at = t
// edges: each as it is now (a new one as made, one there as set), for this process's read
// index (bolt.APPLIED)
WITH a, b, CASE WHEN old IS NULL THEN r.props ELSE properties(old) END AS x
RETURN count(*) AS linked, collect([a.id, b.id, x.w, x.w_at, x.fired_at, x.permanent]) AS edges
