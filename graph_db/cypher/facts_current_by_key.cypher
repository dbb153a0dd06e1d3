// Current facts with the same subject and predicate as each new fact (duplicates, conflicts),
// with their embedding when asked (the write transaction's re-check needs ids and objects).
UNWIND $keys AS k
// by the (ns, subject_key, predicate) index: a subject such as the user holds thousands of facts
MATCH (f:Fact {ns: $ns, subject_key: k.subject_key, predicate: k.predicate})
WHERE f.valid_to IS NULL
RETURN k.i AS i, f.id AS id, f.subject AS subject, f.object AS object,
       CASE WHEN $with_embedding THEN f.embedding ELSE null END AS embedding,
       f.confidence AS confidence, f.importance AS importance, f.valid_from AS valid_from
