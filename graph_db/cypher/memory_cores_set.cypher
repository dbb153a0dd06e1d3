// Store new core numbers ($rows: id, core) of memories of $ns; they are due for vitals
// (consolidation and protection follow the core). Made due, a memory keeps a due time of
// its own (its own if already due, else its creation time): the engines' range indexes
// are per label, and ArcadeDB removes an entry in a time that grows with the entries under
// its key, so one time shared by every memory ($now, or 0) made a first pass quadratic
// (~10 min a page of 250 at 1M memories).
UNWIND $rows AS r
OPTIONAL MATCH (e:Episode {id: r.id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: r.id})
WHERE f.ns = $ns
WITH r, coalesce(e, f) AS n
WHERE n IS NOT NULL
SET n.core = r.core,
    n.vitals_due = CASE WHEN n.vitals_due <= $now THEN n.vitals_due
                        ELSE coalesce(n.created_at, $now) END
RETURN count(n) AS updated
