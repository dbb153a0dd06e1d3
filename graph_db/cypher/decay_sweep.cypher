// Materialise lazy decay on up to $batch liquid edges of $ns not materialised since $before:
// w <- w * exp(-decay * (now - start)), start = max(w_at, fired_at + hold), w_at <- now.
// Run until it returns fewer than $batch.
CALL {
  MATCH (:Episode {ns: $ns})-[x:ASSOC]->() RETURN x
  UNION ALL
  MATCH (:Fact {ns: $ns})-[x:ASSOC]->() RETURN x
}
WITH x
WHERE NOT coalesce(x.permanent, false) AND coalesce(x.w_at, x.fired_at) < $before
WITH x
LIMIT $batch
WITH x, coalesce(x.w_at, $now) AS w_at, coalesce(x.fired_at, x.w_at, $now) + $hold AS held
WITH x, CASE WHEN w_at > held THEN w_at ELSE held END AS start
SET x.w = CASE WHEN $now <= start THEN x.w ELSE x.w * exp(-$decay * ($now - start)) END,
    x.w_at = $now
RETURN count(x) AS decayed
