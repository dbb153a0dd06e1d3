// Adjudicated conflicts teach a namespace its predicates' cardinality: the counts are added
// inside the write that reconciled them, so concurrent writers lose none.
UNWIND $rows AS r
MERGE (p:Predicate {key: r.key})
ON CREATE SET p.ns = $ns, p.name = r.name, p.replaced = 0, p.kept_both = 0
WITH p, r
WHERE p.ns = $ns
SET p.replaced = coalesce(p.replaced, 0) + r.replaced,
    p.kept_both = coalesce(p.kept_both, 0) + r.kept_both
RETURN count(p) AS learned
