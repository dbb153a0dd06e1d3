// Entities by id as the read index holds them (index_entities), for an index catching up
// on another process's writes (the change log names entities with the memories).
UNWIND $ids AS id
MATCH (n:Entity {id: id})
WHERE n.ns = $ns
RETURN n.id AS id, n.embedding AS embedding
