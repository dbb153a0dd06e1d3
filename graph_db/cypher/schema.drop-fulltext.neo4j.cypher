// The engine's full-text indexes dropped (see schema.drop-vectors.neo4j.cypher).
DROP INDEX episode_terms IF EXISTS;
DROP INDEX fact_terms IF EXISTS;
