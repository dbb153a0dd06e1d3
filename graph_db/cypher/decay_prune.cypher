// Decay and prune the liquid edges leaving a page of the memories of $ns (memories $skip to
// $skip + $page in scan order; a pass pages through every memory once, and pruning deletes
// edges, never memories, so the order holds; a memory written meanwhile may shift a page:
// edges done twice are unchanged the second time, edges missed wait for the next pass, and
// reads decay lazily anyway): lazy decay materialised,
//   w <- w * exp(-decay * (now - start)), start = max(w_at, fired_at + hold), w_at <- now,
// and edges left under $w_min deleted. Permanent edges are never touched.
CALL {
  MATCH (m:Episode {ns: $ns}) RETURN m
  UNION ALL
  MATCH (m:Fact {ns: $ns}) RETURN m
}
WITH m
SKIP $skip
LIMIT $page
MATCH (m)-[x:ASSOC]->()
WHERE NOT coalesce(x.permanent, false)
WITH x, coalesce(x.w_at, $now) AS w_at, coalesce(x.fired_at, x.w_at, $now) + $hold AS held
WITH x, CASE WHEN w_at > held THEN w_at ELSE held END AS start
WITH x, CASE WHEN $now <= start THEN x.w ELSE x.w * exp(-$decay * ($now - start)) END AS w
SET x.w = w, x.w_at = $now
WITH collect(CASE WHEN w < $w_min THEN x END) AS dead, count(x) AS decayed
FOREACH (d IN dead | DELETE d)
RETURN decayed, size(dead) AS pruned
