// Facts learned from this episode and from no other (forgotten with it on request).
MATCH (f:Fact {ns: $ns})-[:DERIVED_FROM]->(e:Episode {ns: $ns, id: $id})
WHERE NOT EXISTS {
  MATCH (f)-[:DERIVED_FROM]->(o:Episode {ns: $ns})
  WHERE o.id <> $id
}
RETURN f.id AS id
