// Number of liquid (ASSOC) edges in $ns.
CALL {
  MATCH (:Episode {ns: $ns})-[x:ASSOC]->() RETURN x
  UNION ALL
  MATCH (:Fact {ns: $ns})-[x:ASSOC]->() RETURN x
}
RETURN count(x) AS edges
