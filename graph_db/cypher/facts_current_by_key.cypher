// Current facts with the same subject and predicate as each new fact (duplicates, conflicts).
UNWIND $keys AS k
MATCH (f:Fact {subject_key: k.subject_key})
WHERE f.ns = $ns AND f.predicate = k.predicate AND f.valid_to IS NULL
RETURN k.i AS i, f.id AS id, f.subject AS subject, f.object AS object,
       f.embedding AS embedding, f.confidence AS confidence, f.importance AS importance,
       f.valid_from AS valid_from
