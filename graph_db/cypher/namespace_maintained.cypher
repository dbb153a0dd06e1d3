// Record a maintenance pass of $ns ($kcore_at and $protect_core kept when null).
MATCH (n:Namespace {ns: $ns})
SET n.maintained_at = $now,
    n.kcore_at = coalesce($kcore_at, n.kcore_at),
    n.protect_core = coalesce($protect_core, n.protect_core)
RETURN n.ns AS ns
