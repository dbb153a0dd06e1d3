// Write entities. Rows carry every property; ns is forced to $ns.
UNWIND $rows AS r
CREATE (n:Entity)
SET n = r, n.ns = $ns
RETURN count(n) AS created
