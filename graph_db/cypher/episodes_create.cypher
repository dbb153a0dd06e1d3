// Write episodes (the episodic block). Rows carry every property; ns is forced to $ns.
UNWIND $rows AS r
CREATE (e:Episode)
SET e = r, e.ns = $ns
RETURN count(e) AS created
