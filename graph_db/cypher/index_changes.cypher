// What the read index catches up on (graph_db/read_index.py): the namespace's memories
// written since version $since (memories_stamp), and the deletions it recorded
// (namespace_gone). A scan of the namespace's memories, not of their vectors.
CALL () {
  MATCH (m:Episode {ns: $ns})
  WHERE m.ver > $since
  RETURN m
  UNION ALL
  MATCH (m:Fact {ns: $ns})
  WHERE m.ver > $since
  RETURN m
}
RETURN m.id AS id, labels(m)[0] AS label, m.vecs AS vecs, m.terms AS terms
