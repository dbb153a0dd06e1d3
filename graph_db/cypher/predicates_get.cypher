// What a namespace declared and learned about its predicates' cardinality (graph_db.reconcile).
UNWIND $keys AS k
MATCH (p:Predicate {key: k.key})
WHERE p.ns = $ns
RETURN p.name AS name, p.override AS override, p.replaced AS replaced, p.kept_both AS kept_both
