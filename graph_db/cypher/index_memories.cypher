// What the read index holds of a namespace, read in one pass when it is built: each
// memory's id, label, packed recall vectors (graph_db/vecpack.py), full-text terms and what
// recall ranks it by (row: recall_rows.cypher's, without the terms and vectors).
CALL () {
  MATCH (m:Episode {ns: $ns}) RETURN m
  UNION ALL
  MATCH (m:Fact {ns: $ns}) RETURN m
}
RETURN m.id AS id, labels(m)[0] AS label, m.vecs AS vecs, m.terms AS terms,
       m {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .predicate, .importance, .asks,
          .source_episode_id, .last_access} AS row
