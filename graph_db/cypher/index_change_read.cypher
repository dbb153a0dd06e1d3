// The change log's entries of a namespace by key (namespace_bump), for a read index to
// catch up on the versions since its own; a missing one was dropped (too far behind).
UNWIND $keys AS key
MATCH (c:IndexChange {key: key})
WHERE c.ns = $ns
RETURN c.v AS v, c.ids AS ids, c.gone AS gone
ORDER BY v
