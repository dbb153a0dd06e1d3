// Delete up to $batch non-permanent liquid edges of $ns whose decayed weight is under $w_min.
CALL {
  MATCH (:Episode {ns: $ns})-[x:ASSOC]->() RETURN x
  UNION ALL
  MATCH (:Fact {ns: $ns})-[x:ASSOC]->() RETURN x
}
WITH x
WHERE NOT coalesce(x.permanent, false)
  AND x.w * exp(-$decay * ($now - coalesce(x.w_at, x.fired_at, $now))) < $w_min
WITH x
LIMIT $batch
DELETE x
RETURN count(*) AS pruned
