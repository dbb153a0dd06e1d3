// Memories of $ns that die (Game of Life): isolated since before $isolated_before, importance
// under $max_importance, not protected by a core, not permanent. At most $limit.
CALL {
  MATCH (n:Episode {ns: $ns}) RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) RETURN n
}
WITH n
WHERE n.isolated_since IS NOT NULL AND n.isolated_since < $isolated_before
  AND coalesce(n.importance, 0.5) < $max_importance
  AND NOT coalesce(n.protected, false) AND NOT coalesce(n.permanent, false)
RETURN n.id AS id
LIMIT $limit
