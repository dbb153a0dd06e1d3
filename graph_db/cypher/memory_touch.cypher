// Record an access: count, time (feeds importance and decay's recency correction).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m.access_count = coalesce(m.access_count, 0) + 1, m.last_access = $now, m.vitals_due = $now
RETURN count(m) AS touched
