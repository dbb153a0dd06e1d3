// Schema of the liquid graph on Neo4j 5 / 2025+ (idempotent).
// The engine's own search indexes are apart (schema.vectors / schema.fulltext), made only
// when a search asks the engine.
CREATE CONSTRAINT namespace_ns IF NOT EXISTS FOR (n:Namespace) REQUIRE n.ns IS UNIQUE;
CREATE CONSTRAINT magsmeta_key IF NOT EXISTS FOR (n:MagsMeta) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT predicate_key IF NOT EXISTS FOR (n:Predicate) REQUIRE n.key IS UNIQUE;
CREATE INDEX predicate_ns IF NOT EXISTS FOR (n:Predicate) ON (n.ns);
CREATE INDEX indexchange_key IF NOT EXISTS FOR (n:IndexChange) ON (n.key);
CREATE INDEX indexchange_ns IF NOT EXISTS FOR (n:IndexChange) ON (n.ns);
CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (n:Episode) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE;
CREATE INDEX episode_ns IF NOT EXISTS FOR (n:Episode) ON (n.ns);
CREATE INDEX episode_ns_session IF NOT EXISTS FOR (n:Episode) ON (n.ns, n.session_id);
CREATE INDEX fact_ns IF NOT EXISTS FOR (n:Fact) ON (n.ns);
CREATE INDEX fact_ns_subject_predicate IF NOT EXISTS FOR (n:Fact) ON (n.ns, n.subject_key, n.predicate);
// its two-property forerunner, in stores made before it: every write paid for it
DROP INDEX fact_ns_subject IF EXISTS;
// maintenance finds what is due by range (graph_db.maintenance), never by a scan: a
// namespace's own range (a due time alone is a range of every namespace's memories)
CREATE INDEX episode_ns_expire_at IF NOT EXISTS FOR (n:Episode) ON (n.ns, n.expire_at);
CREATE INDEX episode_ns_vitals_due IF NOT EXISTS FOR (n:Episode) ON (n.ns, n.vitals_due);
CREATE INDEX fact_ns_expire_at IF NOT EXISTS FOR (n:Fact) ON (n.ns, n.expire_at);
CREATE INDEX fact_ns_vitals_due IF NOT EXISTS FOR (n:Fact) ON (n.ns, n.vitals_due);
// their one-property forerunners, in stores made before them
DROP INDEX episode_expire_at IF EXISTS;
DROP INDEX episode_vitals_due IF EXISTS;
DROP INDEX fact_expire_at IF EXISTS;
DROP INDEX fact_vitals_due IF EXISTS;
CREATE INDEX entity_ns_name IF NOT EXISTS FOR (n:Entity) ON (n.ns, n.name);
