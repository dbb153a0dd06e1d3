// Set properties of one memory; a null value removes the property.
// Returns the values of the properties $fields (models.py's MEMORY_FIELDS).
OPTIONAL MATCH (e:Episode {id: $id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: $id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m += $props
RETURN [k IN $fields | m[k]] AS values,
       labels(m)[0] AS label
