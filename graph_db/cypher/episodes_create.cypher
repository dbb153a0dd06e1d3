// Write episodes (the episodic block). ns is forced to $ns; vitals_due: its creation time, so
// a first maintenance visit at the next pass (a time of its own, not one value shared by every
// new memory: see memory_cores_set). The write path's properties are given in CREATE, with
// edges_at and expire_at (a lower bound: its creation; no row carries them) that its links
// set in the same transaction: ArcadeDB writes the record whole, where one made empty and
// grown by SET is split over pages (every later read and update of it then touches two or
// more).
// A row's ``more`` (a snapshot's memories: all their properties) adds what else it carries.
// Only then: SET on the write path would write each record a second time.
UNWIND $rows AS r
CREATE (e:Episode {id: r.id, text: r.text, terms: r.terms, asks: r.asks, speaker: r.speaker,
                   session_id: r.session_id, ts: r.ts, seq: r.seq, embedding: r.embedding,
                   vecs: r.vecs, created_at: r.created_at, last_access: r.last_access,
                   access_count: r.access_count, importance: r.importance,
                   salience: r.salience, permanent: r.permanent, metadata: r.metadata,
                   ns: $ns, vitals_due: coalesce(r.created_at, 0.0),
                   edges_at: coalesce(r.created_at, 0.0),
                   expire_at: coalesce(r.created_at, 0.0)})
FOREACH (_ IN CASE WHEN r.more IS NULL THEN [] ELSE [1] END |
  SET e += r.more, e.ns = $ns, e.vitals_due = coalesce(r.created_at, 0.0))
RETURN count(e) AS created
