// The edges around one memory, both ways, whose other end is in the namespace (a memory's
// detail): each edge's type, direction, the other end (id, label, text or name) and its
// properties (w: a liquid edge's weight; a SUPERSEDES edge's reason), at most $limit.
OPTIONAL MATCH (e:Episode {id: $id})
WHERE e.ns = $ns
OPTIONAL MATCH (x:Fact {id: $id})
WHERE x.ns = $ns
WITH coalesce(e, x) AS m
WHERE m IS NOT NULL
CALL (m) {
  MATCH (m)-[r]->(o)
  WHERE o.ns = $ns
  RETURN r, o, 'out' AS direction
  UNION ALL
  MATCH (m)<-[r]-(o)
  WHERE o.ns = $ns
  RETURN r, o, 'in' AS direction
}
RETURN type(r) AS type, direction, o.id AS other, labels(o)[0] AS label,
       coalesce(o.text, o.name) AS other_text, properties(r) AS props
ORDER BY type, direction, other
LIMIT $limit
