// Memories of $ns that die: on the periphery (core <= $max_core), unimportant (importance
// under $max_importance), inactive (not accessed since $inactive_before), neither protected
// by an inner core nor permanent. At most $limit.
CALL {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
WITH n
WHERE coalesce(n.core, 0) <= $max_core
  AND coalesce(n.importance, 0.5) < $max_importance
  AND coalesce(n.last_access, n.created_at) < $inactive_before
  AND NOT coalesce(n.protected, false) AND NOT coalesce(n.permanent, false)
RETURN n.id AS id
LIMIT $limit
