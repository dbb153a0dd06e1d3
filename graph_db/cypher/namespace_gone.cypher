// Record the memories a transaction deleted, with the version it committed as, for the read
// indexes of other processes to drop (graph_db/read_index.py). Past $keep entries the list
// starts again and gone_floor moves up: an index older than that reads the namespace whole.
MATCH (n:Namespace {ns: $ns})
WITH n, coalesce(n.gone_ids, []) AS ids, coalesce(n.gone_v, []) AS vs
WITH n, size(ids) + size($ids) > $keep AS full, ids, vs
SET n.gone_ids = CASE WHEN full THEN $ids ELSE ids + $ids END,
    n.gone_v = CASE WHEN full THEN [x IN $ids | $version] ELSE vs + [x IN $ids | $version] END,
    n.gone_floor = CASE WHEN full THEN $version - 1 ELSE coalesce(n.gone_floor, 0) END
