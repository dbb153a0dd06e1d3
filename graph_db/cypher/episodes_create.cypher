// Write episodes (the episodic block). Rows carry every property; ns is forced to $ns;
// vitals_due: its creation time, so a first maintenance visit at the next pass (a time of
// its own, not one value shared by every new memory: see memory_cores_set).
UNWIND $rows AS r
CREATE (e:Episode)
SET e = r, e.ns = $ns, e.vitals_due = coalesce(r.created_at, 0.0)
RETURN count(e) AS created
