// Maintenance visit of the memories $ids of $ns: importance recomputed as
//   0.3 * base + 0.3 * (1 - exp(-weighted degree)) + 0.2 * (1 - exp(-access_count / 5))
//   + 0.2 * exp(-days since last access / 30),
// base = salience (episodes) or the mean of salience and confidence (facts), weighted degree
// = the sum of the liquid edges' current (lazily decayed) weights; memories in a core
// >= $protect_core (core as the last decomposition stored it) are consolidated
// (importance + 0.2 * (1 - importance), protected); memories without any liquid edge are
// isolated: importance x $isolation_decay. The next visit is due in $refresh seconds, give
// or take half (spread, so memories visited together do not all fall due together).
// importance: each memory's new importance (for the read index).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS n
WHERE n IS NOT NULL
OPTIONAL MATCH (n)-[x:ASSOC]-(m)
WHERE m.ns = $ns
WITH n, x, coalesce(x.w_at, $now) AS w_at, coalesce(x.fired_at, x.w_at, $now) + $hold AS held
WITH n, x, CASE WHEN w_at > held THEN w_at ELSE held END AS start
WITH n, count(x) AS degree,
     coalesce(sum(CASE WHEN coalesce(x.permanent, false) OR $now <= start THEN x.w
                       ELSE x.w * exp(-$decay * ($now - start)) END), 0.0) AS wdeg
WITH n, degree, wdeg,
     CASE WHEN n.confidence IS NULL THEN coalesce(n.salience, 0.5)
          ELSE (coalesce(n.salience, 0.5) + n.confidence) / 2.0 END AS base,
     ($now - coalesce(n.last_access, n.created_at, $now)) / 86400.0 AS idle_days
WITH n, degree,
     0.3 * base + 0.3 * (1.0 - exp(-wdeg)) + 0.2 * (1.0 - exp(-coalesce(n.access_count, 0) / 5.0))
     + 0.2 * exp(-idle_days / 30.0) AS importance,
     coalesce(n.core, 0) >= $protect_core AS core_member
SET n.importance = CASE
      WHEN core_member THEN importance + 0.2 * (1.0 - importance)
      WHEN degree = 0 THEN importance * $isolation_decay
      ELSE importance END,
    n.protected = core_member,
    n.vitals_due = $now + $refresh * (0.5 + rand())
RETURN count(n) AS done, sum(CASE WHEN core_member THEN 1 ELSE 0 END) AS consolidated,
       collect([n.id, n.importance]) AS importance
