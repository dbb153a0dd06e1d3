// What the read index holds of a namespace, read in one pass when it is built: each
// memory's id, label, packed recall vectors (graph_db/vecpack.py), full-text terms, what
// recall ranks it by (row: recall_rows.cypher's, without the terms and vectors; with its
// write order, seq, which orders ties in the index's searches), and the
// edges and entity links the walk steps over (as index_records reads them).
CALL () {
  MATCH (m:Episode {ns: $ns}) RETURN m
  UNION ALL
  MATCH (m:Fact {ns: $ns}) RETURN m
}
CALL (m) {
  OPTIONAL MATCH (m)-[r:ASSOC|NEXT|DERIVED_FROM]-(o)
  WHERE o.ns = $ns
  RETURN collect(CASE WHEN o IS NULL THEN null
                      ELSE [type(r), o.id, r.w, r.w_at, r.fired_at, r.permanent] END) AS edges
}
CALL (m) {
  OPTIONAL MATCH (m)-[:MENTIONS|ABOUT]->(en:Entity)
  WHERE en.ns = $ns
  RETURN collect(en.id) AS entities
}
RETURN m.id AS id, labels(m)[0] AS label, m.vecs AS vecs, m.terms AS terms, edges, entities,
       m {.valid_from, .valid_to, .ts, .created_at, .seq, .speaker, .subject, .predicate, .importance, .asks,
          .source_episode_id, .last_access} AS row
