// Declare a predicate single-valued (true), multi-valued (false), or neither (null).
MERGE (p:Predicate {key: $key})
ON CREATE SET p.ns = $ns, p.name = $predicate, p.replaced = 0, p.kept_both = 0
WITH p
WHERE p.ns = $ns
SET p.override = $override
RETURN p.name AS name
