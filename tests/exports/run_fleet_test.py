#!/usr/bin/env python3
"""docs/scale.md's fleet SQL run on DuckDB, checked against the map-reduce of
heapql's JSON results.

    run_fleet_test.py --heapql BIN --etl-writer BIN --source-dir DIR --work DIR

Every trace is exported (`heapql export T --to csv exports/NAME`) and queried
(`heapql query T --by stack --top 100000 --no-default-cull --format json`:
the export's stacks are full stacks, no cull list applies). DuckDB (npm
@duckdb/node-api) runs examples/fleet/leaks_by_stack.sql over the exports
(csv_tables.sql), and again over them converted to Parquet
(csv_to_parquet.sql, parquet_tables.sql); examples/fleet/
reduce_leaks_by_stack.py reduces the JSON results. Every row
must agree: the stack's frames, so, soc and the number of traces.

The traces: the repo's (the bundled example with its raw twin, the test
traces, the event CSV example, the synthetic ETL trace), the heaptrack
samples of ../shared/data where present, and event CSV traces made from
seeds (tests/exports/fleet_traces.py), at least 20 in all.
Exit 77 (skipped) when node or DuckDB is absent.
"""
import argparse
import glob
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet_traces import write_trace  # noqa: E402
from run_consumer_test import SKIP, Failure, Skip, check, run  # noqa: E402

MIN_TRACES = 20
GENERATED = 16
REPO_TRACES = ["examples/traces/memory_test_app.zst", "tests/data/worked_example.txt", "tests/data/two_phase.txt",
               "tests/data/csv/example.csv"]
SHARED_HEAPTRACK = "../shared/data/heaptrack"


def gather_traces(args, folder):
    """Copies or writes every trace into FOLDER (heapql may leave a store beside one); their paths."""
    traces = []
    for path in REPO_TRACES:
        traces.append(os.path.join(folder, os.path.basename(path)))
        shutil.copyfile(os.path.join(args.source_dir, path), traces[-1])
    # The bundled example's raw twin, beside it, gives it exact block identity.
    shutil.copyfile(os.path.join(args.source_dir, "examples/traces/memory_test_app.raw.zst"),
                    os.path.join(folder, "memory_test_app.raw.zst"))
    traces.append(os.path.join(folder, "synthetic.etl"))
    run([args.etl_writer, traces[-1]])
    shared = os.path.normpath(os.path.join(args.source_dir, SHARED_HEAPTRACK))
    samples = sorted(p for p in glob.glob(os.path.join(shared, "heaptrack.*")) if not p.endswith(".txt"))
    if samples:
        for path in samples:
            traces.append(os.path.join(folder, os.path.basename(path)))
            shutil.copyfile(path, traces[-1])
    else:
        print(f"note: no heaptrack samples in {shared}; the fleet is the repo's traces and generated ones")
    # One trace that frees nothing (its free_ns column all empty) and one that leaks nothing.
    for seed in range(1, GENERATED + 1):
        name = {1: "all-leaked.csv", 2: "none-leaked.csv"}.get(seed, f"generated-{seed:02}.csv")
        traces.append(os.path.join(folder, name))
        write_trace(traces[-1], seed, {1: True, 2: False}.get(seed))
    return traces


def map_reduce(args, traces):
    """The JSON results of every trace, reduced by the shipped reduce step."""
    sys.path.insert(0, os.path.join(args.source_dir, "examples/fleet"))
    from reduce_leaks_by_stack import leaks_by_stack
    results = []
    for trace in traces:
        result = json.loads(run([args.heapql, "query", trace, "--no-progress", "--by", "stack", "--top", "100000",
                                 "--no-default-cull", "--format", "json"]).stdout)
        check(result["other"] is None, f"{trace}: rows beyond --top 100000 ({result['other']})")
        results.append(result)
    leaks = leaks_by_stack(results)
    joined = {" <- ".join(stack): sums for stack, sums in leaks.items()}
    check(len(joined) == len(leaks), "two stacks' frames joined with ' <- ' are the same text")
    return joined


def fleet_sql(args, work, tables):
    """DuckDB's answer over the views of examples/fleet/TABLES: {frames: [so, soc, traces]}, and the
    number of traces it read."""
    def example(name):
        with open(os.path.join(args.source_dir, "examples/fleet", name)) as f:
            return f.read()
    script = os.path.join(args.source_dir, "tests/exports/duckdb_query.mjs")
    # The SQL names exports/ and parquet/ relative to where it runs.
    lines = run(["node", script, example(tables), example("leaks_by_stack.sql"), "SELECT * FROM leaks_by_stack",
                 "SELECT COUNT(DISTINCT trace) AS traces FROM blocks"], cwd=work).stdout.splitlines()
    check(len(lines) == 4, f"DuckDB printed {len(lines)} results, not 4")
    rows = json.loads(lines[2])
    answer = {row["frames"]: [int(row["so"]), int(row["soc"]), int(row["traces"])] for row in rows}
    check(len(answer) == len(rows), f"{tables}: leaks_by_stack has two rows for one stack")
    return answer, int(json.loads(lines[3])[0]["traces"])


def csv_to_parquet(args, work):
    with open(os.path.join(args.source_dir, "examples/fleet/csv_to_parquet.sql")) as f:
        sql = f.read()
    os.makedirs(os.path.join(work, "parquet"))
    run(["node", os.path.join(args.source_dir, "tests/exports/duckdb_query.mjs"), sql], cwd=work)


def compare(tables, sql, reduced):
    missing = sorted(set(reduced) - set(sql))
    extra = sorted(set(sql) - set(reduced))
    check(not missing, f"{tables}: {len(missing)} leaking stacks of the JSON results not in DuckDB's answer, e.g. {missing[:3]}")
    check(not extra, f"{tables}: {len(extra)} stacks in DuckDB's answer not in the JSON results, e.g. {extra[:3]}")
    differ = [(frames, sql[frames], reduced[frames]) for frames in sorted(sql) if sql[frames] != reduced[frames]]
    check(not differ, f"{tables}: {len(differ)} stacks' [so, soc, traces] differ (DuckDB, JSON), e.g. {differ[:3]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--heapql", required=True)
    parser.add_argument("--etl-writer", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    args.heapql, args.etl_writer, args.source_dir, args.work = map(
        os.path.abspath, (args.heapql, args.etl_writer, args.source_dir, args.work))
    os.makedirs(args.work, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="heapql-fleet-", dir=args.work) as work:
        try:
            if not os.path.isdir(os.path.join(args.source_dir, "tests/exports/node_modules/@duckdb/node-api")):
                raise Skip("DuckDB is absent: npm ci --prefix tests/exports (scripts/install-deps.sh)")
            if shutil.which("node") is None:
                raise Skip("node is absent (scripts/install-deps.sh installs it)")
            os.makedirs(os.path.join(work, "traces"))
            traces = gather_traces(args, os.path.join(work, "traces"))
            check(len(traces) >= MIN_TRACES, f"{len(traces)} traces, fewer than {MIN_TRACES}")
            for trace in traces:
                run([args.heapql, "export", trace, "--no-progress", "--to", "csv",
                     os.path.join(work, "exports", os.path.basename(trace))])
            reduced = map_reduce(args, traces)
            csv_to_parquet(args, work)
            for tables in ("csv_tables.sql", "parquet_tables.sql"):
                sql, traces_read = fleet_sql(args, work, tables)
                check(traces_read == len(traces), f"{tables}: DuckDB read the blocks of {traces_read} traces "
                      f"of {len(traces)}")
                compare(tables, sql, reduced)
                # The fleet is one: stacks recur across traces, so the join by frame texts is exercised.
                shared = max(sums[2] for sums in sql.values())
                check(shared >= 5, f"{tables}: no stack leaks in more than {shared} traces")
                print(f"ok fleet: leaks_by_stack.sql on DuckDB over {tables}, {len(traces)} traces, equals the "
                      f"reduce of their JSON results: {len(sql)} leaking stacks, the most shared in {shared} "
                      f"traces, so {sum(s[0] for s in sql.values())}, soc {sum(s[1] for s in sql.values())}")
        except Skip as skip:
            print(f"skipped: {skip}")
            return SKIP
        except Failure as failure:
            print(f"FAILED: {failure}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
