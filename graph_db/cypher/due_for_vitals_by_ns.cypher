// due_for_vitals for a namespace small beside the store (graph_db.maintenance._due): its
// memories are read through the namespace and filtered by vitals_due. The range of the
// other form is shared by every namespace, so it walks past other namespaces' due memories
// first (a 40-memory namespace beside a 100k one: 0.4-1.5 s a query on ArcadeDB, whose
// Cypher seeks a composite (ns, vitals_due) index by equality only). On Neo4j both forms
// seek an index on the namespace: (ns, vitals_due), or (ns) where its statistics say so.
// At most $limit a label (the caller keeps the first $limit); a plain UNION, as
// due_for_vitals says why.
MATCH (m:Episode {ns: $ns}) WHERE m.vitals_due <= $now RETURN m.id AS id LIMIT $limit
UNION ALL
MATCH (m:Fact {ns: $ns}) WHERE m.vitals_due <= $now RETURN m.id AS id LIMIT $limit
