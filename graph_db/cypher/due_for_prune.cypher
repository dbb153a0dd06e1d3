// Memories of $ns one of whose liquid edges may have decayed under w_min by $now (expire_at,
// range-indexed, is a lower bound on that time), at most $limit a label, the turns first
// (the caller keeps the first $limit). The range is matched before the namespace (the range
// index makes this cheap); each branch is bounded (a union is held in the engine's heap).
// Meant for a large namespace (a small one looks among its own memories:
// due_for_prune_by_ns). A plain UNION, not one inside CALL () { }: see due_for_vitals.
MATCH (m:Episode) WHERE m.expire_at <= $now
WITH m WHERE m.ns = $ns RETURN m.id AS id LIMIT $limit
UNION ALL
MATCH (m:Fact) WHERE m.expire_at <= $now
WITH m WHERE m.ns = $ns RETURN m.id AS id LIMIT $limit
