// The engine's vector indexes, made only when a search asks the engine for nearest
// neighbours (graph_db.search): with the read index on, its own HNSW answers and these would
// only cost every write. Idempotent; waits until they are online (a store may be full already).
// __DIMENSIONS__ is the embedder's dimension, an integer checked by graph_db.cypher.
CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (n:Episode) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: __DIMENSIONS__, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (n:Fact) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: __DIMENSIONS__, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX entity_embedding IF NOT EXISTS FOR (n:Entity) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: __DIMENSIONS__, `vector.similarity_function`: 'cosine'}};
CALL db.awaitIndexes(3600);
