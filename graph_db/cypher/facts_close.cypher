// Superseded facts stop being current: valid_to is set (history keeps them).
UNWIND $rows AS r
MATCH (f:Fact {id: r.id})
WHERE f.ns = $ns AND f.valid_to IS NULL
SET f.valid_to = r.at
RETURN count(f) AS closed
