// Namespaces whose name starts with $prefix (empty prefix: all).
MATCH (n:Namespace)
WHERE n.ns STARTS WITH $prefix
RETURN n.ns AS ns
ORDER BY ns
SKIP $offset
LIMIT $limit
