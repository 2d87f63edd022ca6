-- A fleet's CSV exports as DuckDB views (docs/scale.md, "A fleet"): each trace
-- exported by `heapql export TRACE --to csv exports/NAME`, one folder per
-- trace; every row tagged with its trace, the name of its folder. Run from
-- the folder that holds exports/.
-- Columns that can be all NULL in one trace's file are typed here: DuckDB
-- would read them as text (docs/export.md), and one type must fit every file.
CREATE VIEW blocks AS
  SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
  FROM read_csv('exports/*/blocks.csv', filename = true,
                types = {'free_ns': 'BIGINT', 'pid': 'BIGINT', 'heap': 'UBIGINT'});
CREATE VIEW stack_frames AS
  SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
  FROM read_csv('exports/*/stack_frames.csv', filename = true);
CREATE VIEW frames AS
  SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, * EXCLUDE (filename)
  FROM read_csv('exports/*/frames.csv', filename = true,
                types = {'symbol': 'VARCHAR', 'address': 'UBIGINT', 'text': 'VARCHAR'});
