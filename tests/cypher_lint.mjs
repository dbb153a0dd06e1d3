// Lint Cypher statements with Neo4j's own linter (@neo4j-cypher/language-support).
// stdin: {"name": "query", ...} (or see below); stdout: {"name": [[severity, message], ...], ...}
import { lintCypherQuery } from '@neo4j-cypher/language-support';
import { readFileSync } from 'node:fs';

const arg = (name, type, dflt) => ({ name, description: name, type, isDeprecated: false, ...(dflt ? { default: dflt } : {}) });
const proc = (name, args, rets) => ({
  name, description: name, mode: 'READ', worksOnSystem: false, admin: false,
  argumentDescription: args, option: { deprecated: false },
  returnDescription: rets.map(([n, t]) => ({ name: n, description: n, type: t, isDeprecated: false })),
  signature: `${name}(${args.map((a) => `${a.name} :: ${a.type}`).join(', ')}) :: (${rets.map(([n, t]) => `${n} :: ${t}`).join(', ')})`,
});
// the procedures MAGS calls, with Neo4j's signatures: a misspelt name or a wrong
// argument count is an error
const procedures = {
  'db.index.vector.queryNodes': proc('db.index.vector.queryNodes',
    [arg('indexName', 'STRING'), arg('numberOfNearestNeighbours', 'INTEGER'), arg('query', 'ANY')],
    [['node', 'NODE'], ['score', 'FLOAT']]),
  'db.index.fulltext.queryNodes': proc('db.index.fulltext.queryNodes',
    [arg('indexName', 'STRING'), arg('queryString', 'STRING'),
     arg('options', 'MAP', 'DefaultParameterValue{value={}, type=MAP}')],
    [['node', 'NODE'], ['score', 'FLOAT']]),
  // Graph Data Science (k-core in the engine when installed), as SHOW PROCEDURES gives them
  'gds.kcore.stream': proc('gds.kcore.stream',
    [arg('graphName', 'STRING'), arg('configuration', 'MAP', 'DefaultParameterValue{value={}, type=MAP}')],
    [['nodeId', 'INTEGER'], ['coreValue', 'INTEGER']]),
  'gds.graph.drop': proc('gds.graph.drop',
    [arg('graphName', 'ANY'), arg('failIfMissing', 'BOOLEAN', 'DefaultParameterValue{value=true, type=BOOLEAN}'),
     arg('dbName', 'STRING', 'DefaultParameterValue{value=, type=STRING}'),
     arg('username', 'STRING', 'DefaultParameterValue{value=, type=STRING}')],
    [['graphName', 'STRING'], ['database', 'STRING'], ['databaseLocation', 'STRING'],
     ['memoryUsage', 'STRING'], ['sizeInBytes', 'INTEGER'], ['nodeCount', 'INTEGER'],
     ['relationshipCount', 'INTEGER'], ['configuration', 'MAP'], ['density', 'FLOAT'],
     ['creationTime', 'ZONED DATETIME'], ['modificationTime', 'ZONED DATETIME'],
     ['schema', 'MAP'], ['schemaWithOrientation', 'MAP']]),
};

// stdin is the statements, or {"queries": {...}, "schema": {...}} to lint them against that
// schema instead of the table above: a running server's own procedures and functions (SHOW
// PROCEDURES / SHOW FUNCTIONS YIELD *, per Cypher version), so calls meet real signatures
const input = JSON.parse(readFileSync(0, 'utf8'));
const withSchema = typeof input.queries === 'object' && input.queries !== null;
const queries = withSchema ? input.queries : input;
const base = withSchema ? input.schema : { procedures: { 'CYPHER 5': procedures, 'CYPHER 25': procedures } };
const out = {};
for (const [name, query] of Object.entries(queries)) {
  const parameters = {};
  for (const m of query.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) parameters[m[1]] = null;
  const schema = { ...base, parameters };
  out[name] = lintCypherQuery(query, schema).diagnostics.map((d) => [d.severity, d.message]);
}
process.stdout.write(JSON.stringify(out));
