-- The engine's full-text indexes, made only when a search asks the engine for full-text
-- hits (graph_db.search): with the read index on, BM25 runs in process. Idempotent.
CREATE INDEX IF NOT EXISTS ON Episode (terms) FULL_TEXT;
CREATE INDEX IF NOT EXISTS ON Fact (terms) FULL_TEXT;
