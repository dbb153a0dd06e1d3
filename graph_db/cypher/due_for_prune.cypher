// Memories of $ns one of whose liquid edges may have decayed under w_min by $now (expire_at,
// range-indexed, is a lower bound on that time), at most $limit. The range is matched
// before the namespace: the index on expire_at is what makes this cheap.
CALL {
  MATCH (m:Episode) WHERE m.expire_at <= $now RETURN m
  UNION ALL
  MATCH (m:Fact) WHERE m.expire_at <= $now RETURN m
}
WITH m
WHERE m.ns = $ns
RETURN m.id AS id
LIMIT $limit
