// A page of memories written before recall vectors were packed (schema 1), with the lists
// to pack. A one-time migration when such a store is opened.
MATCH (m)
WHERE (m:Episode OR m:Fact) AND m.vecs IS NULL AND m.embedding IS NOT NULL
RETURN m.id AS id, m.ns AS ns, m.embedding AS embedding, m.views AS views,
       m.ctx_embedding AS ctx_embedding
LIMIT $limit
