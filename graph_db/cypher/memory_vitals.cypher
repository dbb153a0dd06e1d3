// Maintenance of a page of memories of $ns ($rows: id and core number): importance
// recomputed as
//   0.3 * base + 0.3 * (1 - exp(-weighted degree)) + 0.2 * (1 - exp(-access_count / 5))
//   + 0.2 * exp(-days since last access / 30),
// base = salience (episodes) or the mean of salience and confidence (facts); memories in a
// core >= $protect_core are consolidated (importance + 0.2 * (1 - importance), protected);
// memories without any liquid edge are isolated: importance x $isolation_decay.
UNWIND $rows AS r
OPTIONAL MATCH (e:Episode {id: r.id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: r.id})
WHERE f.ns = $ns
WITH r, coalesce(e, f) AS n
WHERE n IS NOT NULL
OPTIONAL MATCH (n)-[x:ASSOC]-(m)
WHERE m.ns = $ns
WITH r, n, count(x) AS degree, coalesce(sum(x.w), 0.0) AS wdeg
WITH r, n, degree, wdeg,
     CASE WHEN n.confidence IS NULL THEN coalesce(n.salience, 0.5)
          ELSE (coalesce(n.salience, 0.5) + n.confidence) / 2.0 END AS base,
     ($now - coalesce(n.last_access, n.created_at, $now)) / 86400.0 AS idle_days
WITH r, n, degree,
     0.3 * base + 0.3 * (1.0 - exp(-wdeg)) + 0.2 * (1.0 - exp(-coalesce(n.access_count, 0) / 5.0))
     + 0.2 * exp(-idle_days / 30.0) AS importance,
     r.core >= $protect_core AS core_member
SET n.core = r.core,
    n.importance = CASE
      WHEN core_member THEN importance + 0.2 * (1.0 - importance)
      WHEN degree = 0 THEN importance * $isolation_decay
      ELSE importance END,
    n.protected = core_member
RETURN count(n) AS done, sum(CASE WHEN core_member THEN 1 ELSE 0 END) AS consolidated
