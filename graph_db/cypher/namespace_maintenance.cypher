// What the last maintenance pass of $ns left: when it ran, when the k-core was last
// decomposed, and the core consolidated then (null before the first pass).
MATCH (n:Namespace {ns: $ns})
RETURN n.maintained_at AS maintained_at, n.kcore_at AS kcore_at, n.protect_core AS protect_core
