// What the last maintenance pass of $ns left: when it ran, when the k-core was last
// decomposed, the core consolidated then and the memories it counted (null before the first
// pass).
MATCH (n:Namespace {ns: $ns})
RETURN n.maintained_at AS maintained_at, n.kcore_at AS kcore_at, n.protect_core AS protect_core,
       n.memories AS memories
