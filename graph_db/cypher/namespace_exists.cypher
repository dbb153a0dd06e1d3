MATCH (n:Namespace {ns: $ns})
RETURN n.ns AS ns
