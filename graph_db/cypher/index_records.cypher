// Memories by id as the read index holds them (graph_db/read_index.py): label, full-text
// terms, what recall ranks them by (row: recall_rows.cypher's, without terms and vectors)
// and, with $vecs, their packed recall vectors. Run at the end of a write transaction for
// what it changed (its own read index has the vectors from the writes), and by another
// process's index catching up on it.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN m.id AS id, labels(m)[0] AS label, m.terms AS terms,
       CASE WHEN $vecs THEN m.vecs END AS vecs,
       m {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .predicate, .importance, .asks,
          .source_episode_id, .last_access} AS row
