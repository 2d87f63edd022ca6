-- A fleet's CSV exports (exports/NAME/TABLE.csv, one folder per trace) as
-- Parquet, in DuckDB: parquet/TABLE/trace=NAME/*.parquet, one folder per
-- table partitioned by trace (Hive's layout, which Spark reads as it is).
-- Run from the folder that holds exports/ and an empty parquet/ (mkdir parquet).
-- Columns that can be all NULL in one trace's file are typed, so that one
-- type fits every file.
COPY (SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
      FROM read_csv('exports/*/trace.csv', filename = true))
  TO 'parquet/trace' (FORMAT parquet, PARTITION_BY (trace));
COPY (SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
      FROM read_csv('exports/*/modules.csv', filename = true))
  TO 'parquet/modules' (FORMAT parquet, PARTITION_BY (trace));
COPY (SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
      FROM read_csv('exports/*/frames.csv', filename = true,
                    types = {'symbol': 'VARCHAR', 'address': 'UBIGINT', 'text': 'VARCHAR'}))
  TO 'parquet/frames' (FORMAT parquet, PARTITION_BY (trace));
COPY (SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
      FROM read_csv('exports/*/stack_nodes.csv', filename = true, types = {'parent_id': 'BIGINT'}))
  TO 'parquet/stack_nodes' (FORMAT parquet, PARTITION_BY (trace));
COPY (SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
      FROM read_csv('exports/*/stack_frames.csv', filename = true))
  TO 'parquet/stack_frames' (FORMAT parquet, PARTITION_BY (trace));
COPY (SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
      FROM read_csv('exports/*/blocks.csv', filename = true,
                    types = {'free_ns': 'BIGINT', 'pid': 'BIGINT', 'heap': 'UBIGINT'}))
  TO 'parquet/blocks' (FORMAT parquet, PARTITION_BY (trace));
