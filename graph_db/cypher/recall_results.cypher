// A recall's results (memory_get's values of $fields by id, null for one deleted meanwhile)
// and the namespace's epoch and version as this read found them: the read index searched
// the version it held without reading it first, and the results stand only when nothing
// but this process's own commits came since (graph_db/recall.py, ReadIndex.still).
OPTIONAL MATCH (n:Namespace {ns: $ns})
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH n, coalesce(e, f) AS m
RETURN n.epoch AS epoch,
       n.version AS version,
       CASE WHEN m IS NULL THEN null ELSE [k IN $fields | m[k]] END AS values,
       CASE WHEN m IS NULL THEN null ELSE labels(m)[0] END AS label
