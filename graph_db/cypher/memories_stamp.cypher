// Stamp the memories a transaction wrote with the namespace's version it committed as
// (graph_db/read_index.py): another process's read index reads what changed since its own
// version instead of the whole namespace.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m.ver = $version
