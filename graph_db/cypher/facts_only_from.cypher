// Facts learned from this episode and from no other (forgotten with it on request).
// The episode is found first, alone: with $id in the pattern beside the namespace's filter,
// ArcadeDB's planner scanned the namespace (0.3-0.7 s at 100k memories, not 2 ms).
UNWIND [$id] AS eid
MATCH (e:Episode {id: eid})
WHERE e.ns = $ns
MATCH (f:Fact)-[:DERIVED_FROM]->(e)
WHERE f.ns = $ns
  AND NOT EXISTS {
    MATCH (f)-[:DERIVED_FROM]->(o:Episode)
    WHERE o.ns = $ns AND o.id <> eid
  }
RETURN f.id AS id
