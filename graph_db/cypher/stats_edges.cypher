// Edge counts per type in one namespace (every edge starts at an episode or a fact).
// Aggregated inside each branch: a union of every edge row is held in the engine's heap
// (1M edges exhausted 4 GB on ArcadeDB).
CALL () {
  MATCH (n:Episode {ns: $ns})-[r]->()
  RETURN type(r) AS type, count(r) AS count, sum(r.w) AS sum_w, count(r.w) AS weighed
  UNION ALL
  MATCH (n:Fact {ns: $ns})-[r]->()
  RETURN type(r) AS type, count(r) AS count, sum(r.w) AS sum_w, count(r.w) AS weighed
}
WITH type, sum(count) AS count, sum(sum_w) AS sum_w, sum(weighed) AS weighed
RETURN type, count, CASE WHEN weighed > 0 THEN sum_w / weighed END AS mean_w
