// Memories (episodes or facts) by id: the values of the properties $fields (models.py's
// MEMORY_FIELDS, with the embedding when asked; a map of every property would also read the
// vectors and terms, see MEMORY_FIELDS).
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN [k IN $fields | m[k]] AS values,
       labels(m)[0] AS label
