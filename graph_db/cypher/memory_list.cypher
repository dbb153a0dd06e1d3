// Memories of one namespace, newest first; $labels picks the blocks. Optional filters (null:
// none): $speaker (who said an episode), $since / $until (epoch s: when an episode was said,
// or since when a fact held, else when it was stored; $since included, $until not).
// Returns the values of the properties $fields (models.py's MEMORY_FIELDS).
CALL () {
  MATCH (n:Episode {ns: $ns}) WHERE 'Episode' IN $labels RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) WHERE 'Fact' IN $labels RETURN n
}
WITH n, coalesce(n.ts, n.valid_from, n.created_at) AS at
WHERE ($speaker IS NULL OR n.speaker = $speaker)
  AND ($since IS NULL OR at >= $since)
  AND ($until IS NULL OR at < $until)
WITH n
ORDER BY n.created_at DESC, n.id
SKIP $offset
LIMIT $limit
RETURN [k IN $fields | n[k]] AS values,
       labels(n)[0] AS label
