// Maintenance of up to $batch memories of $ns from id $after on: importance recomputed as
//   0.3 * base + 0.3 * (1 - exp(-weighted degree)) + 0.2 * (1 - exp(-access_count / 5))
//   + 0.2 * exp(-days since last access / 30),
// base = salience (episodes) or the mean of salience and confidence (facts); memories in a
// core >= $core_protect are consolidated (importance + 0.2 * (1 - importance), protected);
// memories without any liquid edge are isolated: importance x $isolation_decay, and
// isolated_since records since when. Returns the last id done (page on it).
CALL {
  MATCH (n:Episode {ns: $ns}) WHERE n.id > $after RETURN n
  UNION ALL
  MATCH (n:Fact {ns: $ns}) WHERE n.id > $after RETURN n
}
WITH n
ORDER BY n.id
LIMIT $batch
OPTIONAL MATCH (n)-[x:ASSOC]-(m)
WHERE m.ns = $ns
WITH n, count(x) AS degree, coalesce(sum(x.w), 0.0) AS wdeg
WITH n, degree, wdeg,
     CASE WHEN n.confidence IS NULL THEN coalesce(n.salience, 0.5)
          ELSE (coalesce(n.salience, 0.5) + n.confidence) / 2.0 END AS base,
     ($now - coalesce(n.last_access, n.created_at, $now)) / 86400.0 AS idle_days
WITH n, degree,
     0.3 * base + 0.3 * (1.0 - exp(-wdeg)) + 0.2 * (1.0 - exp(-coalesce(n.access_count, 0) / 5.0))
     + 0.2 * exp(-idle_days / 30.0) AS importance,
     coalesce(n.core, 0) >= $core_protect AS core_member
SET n.importance = CASE
      WHEN core_member THEN importance + 0.2 * (1.0 - importance)
      WHEN degree = 0 THEN importance * $isolation_decay
      ELSE importance END,
    n.protected = core_member,
    n.isolated_since = CASE WHEN degree > 0 THEN null
                            ELSE coalesce(n.isolated_since, $now) END
RETURN count(n) AS done, max(n.id) AS last, sum(CASE WHEN core_member THEN 1 ELSE 0 END) AS consolidated
