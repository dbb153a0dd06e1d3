// The vectors of memories by id: own embedding, per-sentence views, in-context view.
UNWIND $ids AS id
OPTIONAL MATCH (e:Episode {id: id})
WHERE e.ns = $ns
OPTIONAL MATCH (f:Fact {id: id})
WHERE f.ns = $ns
WITH coalesce(e, f) AS m
WHERE m IS NOT NULL
RETURN m.id AS id, m.embedding AS embedding, m.views AS views, m.ctx_embedding AS ctx_embedding
