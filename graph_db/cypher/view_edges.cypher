// The edges leaving the memories $ids of $ns (a graph view), whose other end is in $ns: liquid
// (ASSOC, with what its lazily decayed weight needs: graph_db.dynamics.effective_weight),
// structural (NEXT, DERIVED_FROM, SUPERSEDES) and to entities (MENTIONS, ABOUT: the entity's
// name comes along). Each edge once, from the end it leaves.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (x:Fact {id: id})
WHERE x.ns = $ns
WITH coalesce(e, x) AS m
WHERE m IS NOT NULL
MATCH (m)-[r]->(o)
WHERE o.ns = $ns
RETURN m.id AS source, o.id AS target, type(r) AS type, labels(o)[0] AS label,
       o.name AS name, r.w AS w, r.w_at AS w_at, r.fired_at AS fired_at,
       coalesce(r.permanent, false) AS permanent
