// The engine's full-text indexes, made only when a search asks the engine for full-text
// hits (graph_db.search): with the read index on, BM25 runs in process and these would only
// cost every write. Idempotent; waits until they are online (a store may be full already).
CREATE FULLTEXT INDEX episode_terms IF NOT EXISTS FOR (n:Episode) ON EACH [n.terms]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
CREATE FULLTEXT INDEX fact_terms IF NOT EXISTS FOR (n:Fact) ON EACH [n.terms]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
CALL db.awaitIndexes(3600);
