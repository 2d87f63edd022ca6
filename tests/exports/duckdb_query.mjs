// Runs SQL in an in-memory DuckDB (@duckdb/node-api, pinned in package.json)
// and prints each statement's rows as one JSON array a line, values as
// DuckDB's JSON conversion gives them (BIGINT as a string, NULL as null).
//   node duckdb_query.mjs 'SQL' ['SQL' ...]        (run from any folder)
import { DuckDBInstance } from '@duckdb/node-api';

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
for (const sql of process.argv.slice(2)) {
  const reader = await connection.runAndReadAll(sql);
  console.log(JSON.stringify(reader.getRowObjectsJson()));
}
