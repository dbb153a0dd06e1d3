// The ids and objects of the current facts with the same subject and predicate as each new
// fact: the write transaction's check that they are still those its plan read outside it
// (facts_current_by_key; a fact's vector follows from its key and object).
UNWIND $keys AS k
MATCH (f:Fact {ns: $ns, subject_key: k.subject_key, predicate: k.predicate})
WHERE f.valid_to IS NULL
RETURN k.i AS i, f.id AS id, f.object AS object
