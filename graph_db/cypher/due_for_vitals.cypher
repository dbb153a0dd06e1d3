// Memories of $ns due for a maintenance visit by $now (vitals_due, range-indexed): written,
// used, re-linked or re-cored since their last visit, or not visited for a while (the
// importance formula ages). At most $limit a label, the turns first (the caller keeps the
// first $limit). For a large namespace: a small one looks among its own memories
// (due_for_vitals_by_ns). A plain UNION, not one inside CALL () { }: ArcadeDB plans a CALL
// subquery without its optimizer, which scans every memory of a label for a range (1-4.8 s
// a lookup on the 1M store with nothing due, against 0.04-0.2 s through the range index).
MATCH (m:Episode) WHERE m.vitals_due <= $now
WITH m WHERE m.ns = $ns RETURN m.id AS id LIMIT $limit
UNION ALL
MATCH (m:Fact) WHERE m.vitals_due <= $now
WITH m WHERE m.ns = $ns RETURN m.id AS id LIMIT $limit
