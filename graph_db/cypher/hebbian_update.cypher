// Hebbian plasticity on liquid edges: for each pair (a, b) used together with usefulness u at
// time now (a row's own: the rows of several recalls go in one statement, in order),
// w <- w_eff + eta * u * (1 - w_eff), where w_eff is the lazily decayed weight
// w * exp(-decay * (now - start)), start = max(w_at, fired_at + hold): an edge is held for
// $hold seconds after it fired (recency correction); permanent edges do not decay. A pair without an edge
// gets one (co-fired memories are linked). w >= w_perm makes the edge permanent. Both ends
// are due for a maintenance visit (their weighted degree changed) and mark when their edges
// last changed (edges_at: where triadic closure looks); the source's expire_at stays a lower
// bound on when its first edge falls under $w_min (this one: after the hold, then decay).
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
// the pair's edge is read once: its new weight is computed first, then a new edge is made
// with it whole (ArcadeDB then writes it whole, not grown by SET: see episodes_create) or the
// edge there is set; the rows of one statement name each pair once (graph_db/plasticity.py)
OPTIONAL MATCH (a)-[x:ASSOC]->(b)
WITH r, a, b, x, coalesce(x.w_at, r.now) AS w_at,
     coalesce(x.fired_at, x.w_at, r.now) + $hold AS held
WITH r, a, b, x, CASE WHEN w_at > held THEN w_at ELSE held END AS start
WITH r, a, b, x,
     CASE WHEN x IS NULL THEN 0.0
          WHEN coalesce(x.permanent, false) OR r.now <= start THEN x.w
          ELSE x.w * exp(-$decay * (r.now - start)) END AS w_eff
WITH r, a, b, x, w_eff + $eta * r.u * (1.0 - w_eff) AS w
WITH r, a, b, x, w, coalesce(x.permanent, false) OR w >= $w_perm AS permanent
FOREACH (_ IN CASE WHEN x IS NULL THEN [1] ELSE [] END |
  CREATE (a)-[:ASSOC {w: w, w_at: r.now, fired_at: r.now, fired_count: 1,
                      permanent: permanent, created_at: r.now}]->(b))
FOREACH (old IN CASE WHEN x IS NULL THEN [] ELSE [x] END |
  SET old.w = w, old.w_at = r.now, old.fired_at = r.now,
      old.fired_count = coalesce(old.fired_count, 0) + 1, old.permanent = permanent)
SET a.vitals_due = r.now, b.vitals_due = r.now, a.edges_at = r.now, b.edges_at = r.now
WITH r, a, w, permanent,
     CASE WHEN permanent OR $decay <= 0 OR $w_min <= 0 THEN null
          WHEN w < $w_min THEN r.now
          ELSE r.now + $hold + log(w / $w_min) / $decay END AS dies
SET a.expire_at = CASE WHEN dies IS NOT NULL AND coalesce(a.expire_at, dies) >= dies THEN dies
                       ELSE a.expire_at END
RETURN r.a AS a, r.b AS b, r.now AS now, w, permanent
