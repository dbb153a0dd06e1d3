// A namespace's entities as the read index holds them (graph_db/read_index.py): id and
// embedding, which entity linking searches (engram._resolve_entities). Read with
// index_memories when the index is built.
MATCH (n:Entity {ns: $ns})
RETURN n.id AS id, n.embedding AS embedding
