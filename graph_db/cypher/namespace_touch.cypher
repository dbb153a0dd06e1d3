// Register a namespace on first write; reads of an unregistered namespace fail clearly.
MERGE (n:Namespace {ns: $ns})
ON CREATE SET n.created_at = $now
SET n.updated_at = $now
RETURN n.ns AS ns
