// Record another surface form of a known entity.
UNWIND $rows AS r
MATCH (n:Entity {id: r.id})
WHERE n.ns = $ns
WITH n, r, coalesce(n.aliases, []) AS aliases
SET n.aliases = CASE WHEN r.alias IN aliases THEN aliases ELSE aliases + r.alias END,
    n.last_access = $now
RETURN count(n) AS updated
