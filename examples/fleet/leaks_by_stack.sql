-- Leaks by stack over a fleet, in DuckDB (docs/scale.md, "A fleet").
-- Each trace exported by `heapql export TRACE --to csv exports/NAME`: one
-- folder per trace, named for it. Run from the folder that holds exports/,
-- then ask: SELECT * FROM leaks_by_stack ORDER BY so DESC, frames LIMIT 20;

-- One view per table, each row tagged with its trace (the export's folder).
-- The columns used are typed here: a column with nothing but NULLs in the
-- first file read (free_ns of a trace that frees nothing) would be text.
CREATE VIEW blocks AS
  SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, stack_id, size, free_ns
  FROM read_csv('exports/*/blocks.csv', filename = true,
                types = {'stack_id': 'BIGINT', 'size': 'BIGINT', 'free_ns': 'BIGINT'});
CREATE VIEW stack_frames AS
  SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, stack_id, depth, frame_id
  FROM read_csv('exports/*/stack_frames.csv', filename = true,
                types = {'stack_id': 'BIGINT', 'depth': 'BIGINT', 'frame_id': 'BIGINT'});
CREATE VIEW frames AS
  SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS trace, frame_id, text
  FROM read_csv('exports/*/frames.csv', filename = true,
                types = {'frame_id': 'BIGINT', 'text': 'VARCHAR'});

-- Ids are per trace: tables join on (trace, id), and stacks compare across
-- traces by their frame texts, top first, joined with ' <- '.
CREATE VIEW leaks_by_stack AS
WITH leaks AS (
  SELECT trace, stack_id, SUM(size) AS so, COUNT(*) AS soc
  FROM blocks WHERE free_ns IS NULL GROUP BY trace, stack_id),
stacks AS (
  SELECT s.trace, s.stack_id, string_agg(f.text, ' <- ' ORDER BY s.depth) AS frames
  FROM stack_frames s JOIN frames f ON f.trace = s.trace AND f.frame_id = s.frame_id
  GROUP BY s.trace, s.stack_id)
-- A block with no stack has no stack_frames rows: its stack is ''.
SELECT COALESCE(stacks.frames, '') AS frames, SUM(so)::BIGINT AS so, SUM(soc)::BIGINT AS soc,
       COUNT(DISTINCT trace) AS traces
FROM leaks LEFT JOIN stacks USING (trace, stack_id)
GROUP BY ALL;
