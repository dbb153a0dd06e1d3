// Edge counts per type in one namespace (every edge starts at an episode or a fact).
CALL {
  MATCH (n:Episode {ns: $ns})-[r]->() RETURN type(r) AS type, r
  UNION ALL
  MATCH (n:Fact {ns: $ns})-[r]->() RETURN type(r) AS type, r
}
RETURN type, count(r) AS count, avg(r.w) AS mean_w
