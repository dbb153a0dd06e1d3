// Facts learned from this episode and from no other (forgotten with it on request).
MATCH (f:Fact)-[:DERIVED_FROM]->(e:Episode {id: $id})
WHERE e.ns = $ns AND f.ns = $ns
  AND NOT EXISTS {
    MATCH (f)-[:DERIVED_FROM]->(o:Episode)
    WHERE o.ns = $ns AND o.id <> $id
  }
RETURN f.id AS id
