// A near-duplicate was written again: raise confidence (noisy-or), access and importance.
UNWIND $rows AS r
MATCH (f:Fact {id: r.id})
WHERE f.ns = $ns
SET f.confidence = 1.0 - (1.0 - coalesce(f.confidence, 0.5)) * (1.0 - r.confidence),
    f.access_count = coalesce(f.access_count, 0) + 1,
    f.last_access = $now,
    f.importance = coalesce(f.importance, 0.5) + (1.0 - coalesce(f.importance, 0.5)) * $boost
RETURN f.id AS id, f.confidence AS confidence
