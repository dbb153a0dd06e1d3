// Write facts (the semantic block). Rows carry every property; ns is forced to $ns.
UNWIND $rows AS r
CREATE (f:Fact)
SET f = r, f.ns = $ns
RETURN count(f) AS created
