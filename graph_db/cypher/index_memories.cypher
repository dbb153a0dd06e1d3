// What the read index holds of a namespace, read in one pass when it is built: each
// memory's id, label, packed recall vectors (graph_db/vecpack.py) and full-text terms.
CALL () {
  MATCH (m:Episode {ns: $ns}) RETURN m
  UNION ALL
  MATCH (m:Fact {ns: $ns}) RETURN m
}
RETURN m.id AS id, labels(m)[0] AS label, m.vecs AS vecs, m.terms AS terms
