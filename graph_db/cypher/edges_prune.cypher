// Delete up to $batch non-permanent liquid edges of $ns whose decayed weight (as in
// decay_sweep) is under $w_min.
CALL {
  MATCH (:Episode {ns: $ns})-[x:ASSOC]->() RETURN x
  UNION ALL
  MATCH (:Fact {ns: $ns})-[x:ASSOC]->() RETURN x
}
WITH x, coalesce(x.w_at, $now) AS w_at, coalesce(x.fired_at, x.w_at, $now) + $hold AS held
WITH x, CASE WHEN w_at > held THEN w_at ELSE held END AS start
WHERE NOT coalesce(x.permanent, false)
  AND CASE WHEN $now <= start THEN x.w ELSE x.w * exp(-$decay * ($now - start)) END < $w_min
WITH x
LIMIT $batch
DELETE x
RETURN count(*) AS pruned
