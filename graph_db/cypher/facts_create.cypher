// Write facts (the semantic block). Rows carry every property; ns is forced to $ns;
// vitals_due 0: a first maintenance visit at the next pass.
UNWIND $rows AS r
CREATE (f:Fact)
SET f = r, f.ns = $ns, f.vitals_due = 0.0
RETURN count(f) AS created
