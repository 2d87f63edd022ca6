-- A fleet's Parquet tables (csv_to_parquet.sql) as DuckDB views with the
-- same names and columns as csv_tables.sql's. Run from the folder that holds
-- parquet/.
CREATE VIEW blocks AS
  SELECT * FROM read_parquet('parquet/blocks/*/*.parquet', hive_partitioning = true, hive_types = {'trace': VARCHAR});
CREATE VIEW stack_frames AS
  SELECT * FROM read_parquet('parquet/stack_frames/*/*.parquet', hive_partitioning = true, hive_types = {'trace': VARCHAR});
CREATE VIEW frames AS
  SELECT * FROM read_parquet('parquet/frames/*/*.parquet', hive_partitioning = true, hive_types = {'trace': VARCHAR});
