// Store new core numbers ($rows: id, core) of memories of $ns; they are due for vitals
// (consolidation and protection follow the core).
UNWIND $rows AS r
OPTIONAL MATCH (e:Episode {id: r.id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: r.id})
WHERE f.ns = $ns
WITH r, coalesce(e, f) AS n
WHERE n IS NOT NULL
SET n.core = r.core, n.vitals_due = $now
RETURN count(n) AS updated
