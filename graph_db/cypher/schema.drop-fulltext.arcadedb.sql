-- The engine's full-text indexes dropped (see schema.drop-vectors.arcadedb.sql).
DROP INDEX `Episode[terms]` IF EXISTS;
DROP INDEX `Fact[terms]` IF EXISTS;
