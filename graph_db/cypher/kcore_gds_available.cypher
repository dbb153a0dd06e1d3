// Neo4j only (dialect kcore = "gds-or-peel"): whether the Graph Data Science procedures that
// decompose k-cores in the engine are installed (asked once per backend).
SHOW PROCEDURES YIELD name
WHERE name = 'gds.kcore.stream'
RETURN count(name) > 0 AS gds
