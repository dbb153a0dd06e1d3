// Write facts (the semantic block). ns is forced to $ns; vitals_due: its creation time, so a
// first maintenance visit at the next pass (a time of its own, not one value shared by every
// new memory: see memory_cores_set). The write path's properties are given in CREATE, with
// edges_at and expire_at (a lower bound: its creation) that its links set in the same
// transaction: ArcadeDB writes the record whole (see episodes_create). A row's ``more`` (a
// snapshot's memories: all their properties) adds what else it carries.
UNWIND $rows AS r
CREATE (f:Fact {id: r.id, subject: r.subject, subject_key: r.subject_key,
                predicate: r.predicate, object: r.object, text: r.text, terms: r.terms,
                embedding: r.embedding, vecs: r.vecs, confidence: r.confidence,
                valid_from: r.valid_from, valid_to: r.valid_to, seq: r.seq,
                created_at: r.created_at, last_access: r.last_access,
                access_count: r.access_count, importance: r.importance, salience: r.salience,
                permanent: r.permanent, source_episode_id: r.source_episode_id,
                metadata: r.metadata, ns: $ns, vitals_due: coalesce(r.created_at, 0.0),
                edges_at: coalesce(r.created_at, 0.0),
                expire_at: coalesce(r.created_at, 0.0)})
FOREACH (_ IN CASE WHEN r.more IS NULL THEN [] ELSE [1] END |
  SET f += r.more, f.ns = $ns, f.vitals_due = coalesce(r.created_at, 0.0))
RETURN count(f) AS created
