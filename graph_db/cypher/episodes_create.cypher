// Write episodes (the episodic block). Rows carry every property; ns is forced to $ns;
// vitals_due 0: a first maintenance visit at the next pass.
UNWIND $rows AS r
CREATE (e:Episode)
SET e = r, e.ns = $ns, e.vitals_due = 0.0
RETURN count(e) AS created
