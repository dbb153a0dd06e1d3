// Record a maintenance pass of $ns ($kcore_at, $protect_core and $memories kept when null;
// $memories: how many the pass counted, for maintenance._due's choice of query).
MATCH (n:Namespace {ns: $ns})
SET n.maintained_at = $now,
    n.kcore_at = coalesce($kcore_at, n.kcore_at),
    n.protect_core = coalesce($protect_core, n.protect_core),
    n.memories = coalesce($memories, n.memories)
RETURN n.ns AS ns
