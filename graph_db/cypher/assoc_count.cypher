// Number of liquid (ASSOC) edges in $ns (counted inside each branch: see stats_edges).
CALL () {
  MATCH (:Episode {ns: $ns})-[x:ASSOC]->() RETURN count(x) AS edges
  UNION ALL
  MATCH (:Fact {ns: $ns})-[x:ASSOC]->() RETURN count(x) AS edges
}
RETURN sum(edges) AS edges
