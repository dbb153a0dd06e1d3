// Record accesses: count, time (feeds importance and decay's recency correction). A row is
// one memory returned n times, last at now, and due for a maintenance visit from due (the
// traces of several recalls in one statement: graph_db/plasticity.py).
UNWIND $rows AS r
OPTIONAL MATCH (e:Episode {id: r.id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: r.id})
WHERE f.ns = $ns
WITH r, coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m.access_count = coalesce(m.access_count, 0) + r.n, m.last_access = r.now,
    m.vitals_due = r.due
RETURN count(m) AS touched
