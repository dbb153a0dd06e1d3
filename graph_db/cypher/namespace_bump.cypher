// The read index's version of a namespace (graph_db/read_index.py): bumped inside every
// transaction that changes what the index holds (graph_db/backends/bolt.VERSIONED_WRITES),
// so a rolled-back write never moves it. The epoch, set once, tells a namespace deleted and
// created again apart from the one an index was built on.
// With it, the namespace's change log gets this version's entry: the memories the
// transaction created or changed ($ids) and deleted ($gone), keyed epoch#version, for other
// processes' indexes to catch up on by key (index_change_read; no scan of the namespace);
// the entry $kept versions back is deleted. The key is not unique in the schema: two
// transactions that bumped to the same version conflict on the namespace's node and one is
// retried (a unique key would fail it first, as a duplicate, and not be retried).
MATCH (n:Namespace {ns: $ns})
SET n.version = coalesce(n.version, 0) + 1, n.epoch = coalesce(n.epoch, $epoch)
CREATE (c:IndexChange {key: n.epoch + '#' + toString(n.version), ns: $ns, v: n.version,
                       ids: $ids, gone: $gone})
WITH n
OPTIONAL MATCH (old:IndexChange {key: n.epoch + '#' + toString(n.version - $kept)})
WHERE old.ns = $ns
FOREACH (o IN CASE WHEN old IS NULL THEN [] ELSE [old] END | DELETE o)
RETURN n.epoch AS epoch, n.version AS version
