// Set properties of one memory; a null value removes the property.
OPTIONAL MATCH (e:Episode {ns: $ns, id: $id})
OPTIONAL MATCH (f:Fact {ns: $ns, id: $id})
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m += $props
RETURN m {.*, embedding: null} AS memory, labels(m)[0] AS label
