// Every value a subject's predicate has had, current or superseded, oldest first.
MATCH (f:Fact {ns: $ns, subject_key: $subject_key, predicate: $predicate})
RETURN f {.*, embedding: null, vecs: null, terms: null} AS memory,
       labels(f)[0] AS label
ORDER BY f.valid_from, f.created_at
