// Memories of $ns due for a maintenance visit by $now (vitals_due, range-indexed): written,
// used, re-linked or re-cored since their last visit, or not visited for a while (the
// importance formula ages). At most $limit.
CALL {
  MATCH (m:Episode) WHERE m.vitals_due <= $now RETURN m
  UNION ALL
  MATCH (m:Fact) WHERE m.vitals_due <= $now RETURN m
}
WITH m
WHERE m.ns = $ns
RETURN m.id AS id
LIMIT $limit
