// Prune the liquid edges leaving the memories $ids of $ns. Decay is lazy (an edge's weight
// is w * exp(-decay * (now - start)) with start = max(w_at, fired_at + hold), computed on
// read): here edges whose weight is under $w_min at $now are deleted (never permanent ones),
// each memory's expire_at is set to the time the first of its edges left will fall under
// $w_min (null: none will), so the next pass finds it by a range index instead of scanning
// every edge, and both ends of a deleted edge are due for vitals (their degree changed;
// a due time of their own, as in memory_cores_set).
// dead_pairs: the ends of the edges deleted, per memory (for the read index).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
OPTIONAL MATCH (m)-[x:ASSOC]->(o)
WHERE NOT coalesce(x.permanent, false)
WITH m, x, o, coalesce(x.w_at, $now) AS w_at, coalesce(x.fired_at, x.w_at, $now) + $hold AS held
WITH m, x, o, CASE WHEN w_at > held THEN w_at ELSE held END AS start
WITH m, x, o, start,
     CASE WHEN $now <= start THEN x.w ELSE x.w * exp(-$decay * ($now - start)) END AS w
WITH m, count(x) AS checked,
     collect(CASE WHEN w < $w_min THEN x END) AS dead,
     collect(CASE WHEN w < $w_min THEN o END) AS ends,
     min(CASE WHEN w >= $w_min AND $w_min > 0 AND $decay > 0
              THEN start + log(x.w / $w_min) / $decay END) AS expire_at
SET m.expire_at = expire_at,
    m.vitals_due = CASE WHEN size(dead) = 0 OR m.vitals_due <= $now THEN m.vitals_due
                        ELSE coalesce(m.created_at, $now) END
FOREACH (o IN ends | SET o.vitals_due = CASE WHEN o.vitals_due <= $now THEN o.vitals_due
                                             ELSE coalesce(o.created_at, $now) END)
FOREACH (d IN dead | DELETE d)
WITH checked, dead, [o IN ends | [m.id, o.id]] AS pairs
RETURN sum(checked) AS checked, sum(size(dead)) AS pruned, collect(pairs) AS dead_pairs
