// Write facts (the semantic block). Rows carry every property; ns is forced to $ns;
// vitals_due: its creation time, so a first maintenance visit at the next pass (a time of
// its own, not one value shared by every new memory: see memory_cores_set).
UNWIND $rows AS r
CREATE (f:Fact)
SET f = r, f.ns = $ns, f.vitals_due = coalesce(r.created_at, 0.0)
RETURN count(f) AS created
