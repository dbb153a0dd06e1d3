// Every value a subject's predicate has had, current or superseded, oldest first.
// Returns the values of the properties $fields (models.py's MEMORY_FIELDS).
MATCH (f:Fact {ns: $ns, subject_key: $subject_key, predicate: $predicate})
RETURN [k IN $fields | f[k]] AS values,
       labels(f)[0] AS label
ORDER BY f.valid_from, f.created_at
