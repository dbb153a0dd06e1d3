// One step of the recall walk from $frontier (id, act: the activation reached there): the
// memories next to each over liquid (ASSOC) and structural (NEXT, DERIVED_FROM) edges where
// act x w stays at or above $stop, with the edge's weight w (ASSOC: lazily decayed,
// w * exp(-decay * (now - start)), start = max(w_at, fired_at + hold), as
// graph_db.dynamics.effective_weight; NEXT: $next_w; DERIVED_FROM: $derived_w) and what
// recall needs to rank the memory reached (row; null for the $known ids, whose rows the
// caller has). Weighing and filtering here keeps the rows sent back few. At most $fanout
// edges of each memory are read (in the engine's order): a hub tied to thousands of
// memories would cost seconds, and says little about any one of them.
// $rows: whether rows are sent at all, $vecs: whether they carry the packed vectors (not
// when the read index holds them).
UNWIND $frontier AS f
OPTIONAL MATCH (e:Episode {id: f.id})
WHERE e.ns = $ns
OPTIONAL MATCH (x:Fact {id: f.id})
WHERE x.ns = $ns
WITH f, coalesce(e, x) AS m
WHERE m IS NOT NULL
CALL (m) {
  MATCH (m)-[r:ASSOC|NEXT|DERIVED_FROM]-(o)
  WHERE o.ns = $ns
  RETURN r, o
  LIMIT $fanout
}
WITH f, o, r, type(r) AS edge,
     coalesce(r.w_at, $now) AS w_at, coalesce(r.fired_at, r.w_at, $now) + $hold AS held
WITH f, o, r, edge, CASE WHEN w_at > held THEN w_at ELSE held END AS start
WITH f, o, edge,
     CASE WHEN edge = 'NEXT' THEN $next_w
          WHEN edge = 'DERIVED_FROM' THEN $derived_w
          WHEN coalesce(r.permanent, false) OR $now <= start THEN coalesce(r.w, 0.0)
          ELSE coalesce(r.w, 0.0) * exp(-$decay * ($now - start)) END AS w
WHERE f.act * w >= $stop
RETURN f.id AS source, o.id AS id, edge, w,
       CASE WHEN NOT $rows OR o.id IN $known THEN null ELSE
         o {.valid_from, .valid_to, .ts, .created_at, .speaker, .subject, .predicate, .importance, .asks,
           .source_episode_id, .terms,
            .last_access, vecs: CASE WHEN $vecs THEN o.vecs END, label: labels(o)[0]} END AS row
