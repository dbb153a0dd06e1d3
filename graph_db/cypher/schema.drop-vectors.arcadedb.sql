-- The engine's vector indexes dropped: a store made before schema 4 had them whatever
-- answered its searches (graph_db.liquid_graph drops them once, when nothing here asks them).
DROP INDEX `Episode[embedding]` IF EXISTS;
DROP INDEX `Fact[embedding]` IF EXISTS;
DROP INDEX `Entity[embedding]` IF EXISTS;
