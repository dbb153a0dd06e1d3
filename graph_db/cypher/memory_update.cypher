// Set properties of one memory; a null value removes the property.
OPTIONAL MATCH (e:Episode {id: $id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: $id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m += $props
RETURN m {.*, embedding: null, vecs: null, terms: null} AS memory,
       labels(m)[0] AS label
