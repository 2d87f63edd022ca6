-- Leaks by stack over a fleet, in DuckDB (docs/scale.md, "A fleet"), from the
-- views blocks, stack_frames and frames of csv_tables.sql or
-- parquet_tables.sql. Then ask:
--   SELECT * FROM leaks_by_stack ORDER BY so DESC, frames LIMIT 20;
-- Ids are per trace: tables join on (trace, id), and stacks compare across
-- traces by their frame texts, top first, joined with ' <- '.
CREATE VIEW leaks_by_stack AS
WITH leaks AS (
  SELECT trace, stack_id, SUM(size) AS so, COUNT(*) AS soc
  FROM blocks WHERE free_ns IS NULL GROUP BY trace, stack_id),
stacks AS (
  SELECT s.trace, s.stack_id, string_agg(f.text, ' <- ' ORDER BY s.depth) AS frames
  FROM stack_frames s JOIN frames f ON f.trace = s.trace AND f.frame_id = s.frame_id
  SEMI JOIN leaks l ON l.trace = s.trace AND l.stack_id = s.stack_id  -- only the stacks that leak
  GROUP BY s.trace, s.stack_id)
-- A block with no stack has no stack_frames rows: its stack is ''.
SELECT COALESCE(stacks.frames, '') AS frames, SUM(so)::BIGINT AS so, SUM(soc)::BIGINT AS soc,
       COUNT(DISTINCT trace) AS traces
FROM leaks LEFT JOIN stacks USING (trace, stack_id)
GROUP BY ALL;
