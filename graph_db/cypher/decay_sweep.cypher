// Materialise lazy decay on up to $batch liquid edges of $ns not materialised since $before:
// w <- w * exp(-decay * (now - w_at)), w_at <- now. Run until it returns fewer than $batch.
CALL {
  MATCH (:Episode {ns: $ns})-[x:ASSOC]->() RETURN x
  UNION ALL
  MATCH (:Fact {ns: $ns})-[x:ASSOC]->() RETURN x
}
WITH x
WHERE NOT coalesce(x.permanent, false) AND coalesce(x.w_at, x.fired_at) < $before
WITH x
LIMIT $batch
SET x.w = x.w * exp(-$decay * ($now - coalesce(x.w_at, x.fired_at))), x.w_at = $now
RETURN count(x) AS decayed
