// Store packed recall vectors (graph_db/vecpack.py) and drop the lists they replace.
UNWIND $rows AS r
OPTIONAL MATCH (e:Episode {id: r.id})
WHERE e.ns = r.ns
OPTIONAL MATCH (f:Fact {id: r.id})
WHERE f.ns = r.ns
WITH r, coalesce(e, f) AS m
WHERE m IS NOT NULL
SET m.vecs = r.vecs, m.views = null, m.ctx_embedding = null
