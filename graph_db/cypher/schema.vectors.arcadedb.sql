-- The engine's vector indexes, made only when a search asks the engine for nearest
-- neighbours (graph_db.search): with the read index on, its own HNSW answers and these would
-- only cost every write (and after each restart ArcadeDB rebuilds their graphs: over ten
-- minutes of a core at 900k memories). Idempotent. __DIMENSIONS__ is the embedder's
-- dimension, an integer checked by graph_db.cypher.
CREATE INDEX IF NOT EXISTS ON Episode (embedding) LSM_VECTOR METADATA {"dimensions": __DIMENSIONS__, "similarity": "COSINE"};
CREATE INDEX IF NOT EXISTS ON Fact (embedding) LSM_VECTOR METADATA {"dimensions": __DIMENSIONS__, "similarity": "COSINE"};
CREATE INDEX IF NOT EXISTS ON Entity (embedding) LSM_VECTOR METADATA {"dimensions": __DIMENSIONS__, "similarity": "COSINE"};
