// The $excess memories of $ns to drop to respect its capacity, never permanent ones, in this
// order: superseded facts (history), episodes whose facts were extracted (their content
// lives on), other episodes, and last the current facts (the distilled knowledge); within
// each, unprotected before core-protected, least important first, least recently used first.
CALL () {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
WITH n
WHERE NOT coalesce(n.permanent, false)
OPTIONAL MATCH (n)<-[d:DERIVED_FROM]-(src:Fact)
WHERE src.ns = $ns
WITH n, count(d) AS derived
RETURN n.id AS id
ORDER BY CASE WHEN n.valid_to IS NOT NULL THEN 0 WHEN derived > 0 THEN 1
              WHEN n.confidence IS NULL THEN 2 ELSE 3 END,
         CASE WHEN coalesce(n.protected, false) THEN 1 ELSE 0 END, coalesce(n.importance, 0.5),
         coalesce(n.last_access, n.created_at)
LIMIT $excess
