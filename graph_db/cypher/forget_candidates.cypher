// Which of the memories $ids of $ns die: on the periphery (core <= $max_core), unimportant
// (importance under $max_importance), inactive (not accessed since $inactive_before), neither
// protected by an inner core nor permanent.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS n
WHERE n IS NOT NULL
  AND coalesce(n.core, 0) <= $max_core
  AND coalesce(n.importance, 0.5) < $max_importance
  AND coalesce(n.last_access, n.created_at) < $inactive_before
  AND NOT coalesce(n.protected, false) AND NOT coalesce(n.permanent, false)
RETURN n.id AS id
