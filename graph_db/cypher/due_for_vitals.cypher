// Memories of $ns due for a maintenance visit by $now (vitals_due, range-indexed): written,
// used, re-linked or re-cored since their last visit, or not visited for a while (the
// importance formula ages). At most $limit, each branch bounded (see due_for_prune). For a
// large namespace: a small one looks among its own memories (due_for_vitals_by_ns).
CALL () {
  MATCH (m:Episode) WHERE m.vitals_due <= $now
  WITH m WHERE m.ns = $ns RETURN m.id AS id LIMIT $limit
  UNION ALL
  MATCH (m:Fact) WHERE m.vitals_due <= $now
  WITH m WHERE m.ns = $ns RETURN m.id AS id LIMIT $limit
}
RETURN id
LIMIT $limit
