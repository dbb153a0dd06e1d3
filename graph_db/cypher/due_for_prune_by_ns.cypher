// due_for_prune for a namespace small beside the store: its memories read through the
// namespace and filtered by expire_at (see due_for_vitals_by_ns), at most $limit a label.
MATCH (m:Episode {ns: $ns}) WHERE m.expire_at <= $now RETURN m.id AS id LIMIT $limit
UNION ALL
MATCH (m:Fact {ns: $ns}) WHERE m.expire_at <= $now RETURN m.id AS id LIMIT $limit
