// The ids of the current facts with the same subject and predicate as each new fact: the write
// transaction's check that they are still those its plan read (facts_current_by_key) outside it.
UNWIND $keys AS k
MATCH (f:Fact {ns: $ns, subject_key: k.subject_key, predicate: k.predicate})
WHERE f.valid_to IS NULL
RETURN k.i AS i, f.id AS id
