// Record an access: count, time (feeds importance and decay's recency correction).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {ns: $ns, id: id})
OPTIONAL MATCH (f:Fact {ns: $ns, id: id})
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m.access_count = coalesce(m.access_count, 0) + 1, m.last_access = $now
RETURN count(m) AS touched
