// The deletions a namespace recorded (namespace_gone) and the version before which they
// are no longer all there: an index older than gone_floor reads the namespace whole.
MATCH (n:Namespace {ns: $ns})
RETURN n.gone_ids AS ids, n.gone_v AS versions, coalesce(n.gone_floor, 0) AS floor
