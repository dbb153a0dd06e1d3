// Memories by id as the read index holds them (graph_db/read_index.py): label, full-text
// terms, what recall ranks them by (row: recall_rows.cypher's, without terms and vectors),
// the edges the walk steps over (edges: [type, other id, w, w_at, fired_at, permanent], as
// walk_edges reads them) and the entities they link to (as walk_entities), and, with $vecs,
// their packed recall vectors. Run at the end of a write transaction for what it changed
// (its own read index has the vectors from the writes), and by another process's index
// catching up on it.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
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
RETURN m.id AS id, labels(m)[0] AS label, m.terms AS terms,
       CASE WHEN $vecs THEN m.vecs END AS vecs, edges, entities,
       m {.valid_from, .valid_to, .ts, .created_at, .seq, .speaker, .subject, .predicate, .importance, .asks,
          .source_episode_id, .last_access} AS row
