// The read index's version of a namespace (graph_db/read_index.py): bumped inside every
// transaction that changes what the index holds (graph_db/backends/bolt.VERSIONED_WRITES),
// so a rolled-back write never moves it. The epoch, set once, tells a namespace deleted and
// created again apart from the one an index was built on.
MATCH (n:Namespace {ns: $ns})
SET n.version = coalesce(n.version, 0) + 1, n.epoch = coalesce(n.epoch, $epoch)
RETURN n.epoch AS epoch, n.version AS version
