// Memories an answer used: access recorded, importance <- importance + eta * u * (1 - importance).
UNWIND $rows AS r
OPTIONAL MATCH (e:Episode {id: r.id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: r.id})
WHERE f.ns = $ns
WITH r, coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m.access_count = coalesce(m.access_count, 0) + 1,
    m.last_access = $now,
    m.vitals_due = $now,
    m.importance = coalesce(m.importance, 0.5) + $eta * r.u * (1.0 - coalesce(m.importance, 0.5))
RETURN m.id AS id, m.importance AS importance
