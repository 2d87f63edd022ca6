#!/usr/bin/env python3
"""heapql's exchange formats read by the real tools that consume them.

    run_consumer_test.py CASE --heapql BIN --source-dir DIR --work DIR

CASE is one of:
  pprof       --format pprof read by Google's pprof (built from Debian's Go
              source by build-pprof.sh into WORK): `pprof -top` with every
              sample index gives heapql's JSON total of that measure; `-raw`
              gives every sample's values, `-traces` every stack's frames and
              `-tags` the labels' bytes.
  speedscope  --format folded and --format pprof imported by speedscope's own
              page (npm, in headless Chromium, as its command line opens a
              file): its sandwich table's self and total weight of every
              function.
  sqlite3     `export --to sqlite` read by the sqlite3 shell: the worked
              queries of docs/export.md, its NULLs, indexes and row order.
  duckdb      `export --to csv` and `--to jsonl` read by DuckDB (npm
              @duckdb/node-api) as they are: the same rows, types and NULLs
              as the SQLite export.

Traces: tests/data/worked_example.txt and examples/traces/memory_test_app.zst
(and tests/data/csv/example.csv where processes, threads and heaps matter).
Exit 77 (skipped) when the consumer is absent (scripts/install-deps.sh
installs them all).
"""
import argparse
import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
MEASURES = ["so", "soc", "st", "stc"]
# pprof's sample types (docs/reports.md) and the measure each one carries.
SAMPLE_TYPES = {"alloc_objects": "stc", "alloc_space": "st", "inuse_objects": "soc", "inuse_space": "so"}
TABLES = ["trace", "modules", "frames", "stack_nodes", "stack_frames", "blocks"]


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                            **kwargs)
    if result.returncode != 0:
        raise Failure(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result


class Heapql:
    def __init__(self, binary, trace):
        self.binary = binary
        self.trace = trace

    def query(self, options, fmt, out=None):
        command = [self.binary, "query", self.trace, "--no-progress"] + options + ["--format", fmt]
        if out:
            command += ["-o", out]
        return run(command).stdout

    def json(self, options):
        return json.loads(self.query(options, "json"))

    def export(self, kind, target):
        run([self.binary, "export", self.trace, "--no-progress", "--to", kind, target])


def traces(source_dir, work):
    """The two traces, each copied into WORK (a store may be written beside a trace)."""
    out = []
    for path in ("tests/data/worked_example.txt", "examples/traces/memory_test_app.zst",
                 "examples/traces/memory_test_app.raw.zst"):
        copy = os.path.join(work, os.path.basename(path))
        shutil.copyfile(os.path.join(source_dir, path), copy)
        if ".raw." not in path:
            out.append(copy)
    return out


# ---- pprof ------------------------------------------------------------------------------------

def pprof_unit(sample_index):
    # Bytes in bytes (pprof scales them to kB, MB ... otherwise); counts print whole as they are.
    return ["-unit=B"] if sample_index.endswith("_space") else []


def pprof_total(pprof, profile, sample_index):
    """The total of `pprof -top`'s header line."""
    text = run([pprof, "-top", f"-sample_index={sample_index}"] + pprof_unit(sample_index) + [profile]).stdout
    match = re.search(r"^Showing nodes accounting for (\S+), [\d.]+% of (\S+) total$", text, re.M)
    check(match is not None, f"pprof -top -sample_index={sample_index}: no total line in\n{text}")
    type_line = re.search(r"^Type: (\S+)$", text, re.M)
    check(type_line is not None and type_line.group(1) == sample_index, f"pprof -top says {type_line}:\n{text}")
    return parse_pprof_number(match.group(2), text)


def parse_pprof_number(value, context):
    match = re.fullmatch(r"(\d+)B?", value)
    check(match is not None, f"pprof printed {value!r}, not a whole number of the sample's unit:\n{context}")
    return int(match.group(1))


def pprof_raw_samples(pprof, profile):
    """`pprof -raw`: the sample types in order, and each sample's values."""
    text = run([pprof, "-raw", profile]).stdout
    header = re.search(r"^Samples:\n(.*)$", text, re.M)
    check(header is not None, f"pprof -raw: no Samples: section\n{text[:3000]}")
    types = [t.split("/")[0] for t in header.group(1).split()]
    samples = []
    for line in text[header.end():].split("\nLocations", 1)[0].splitlines():
        # `   1    72704    0    0: 11 12 13 14` — the values, then the sample's location ids
        # (a label line below a sample has no values).
        values = line.split(":", 1)[0].split()
        if values and all(re.fullmatch(r"-?\d+", v) for v in values):
            check(len(values) == len(types), f"pprof -raw: a sample with {len(values)} values: {line}")
            samples.append([int(v) for v in values])
    return types, samples


def pprof_traces(pprof, profile, sample_index):
    """`pprof -traces`: each sample's (value, [function names, allocating frame first])."""
    # -symbolize=none: pprof shows names as the file has them, not shortened by its demangler.
    text = run([pprof, "-traces", "-symbolize=none", f"-sample_index={sample_index}"] + pprof_unit(sample_index)
               + [profile]).stdout
    # Each sample below a rule `-----------+-----...`: its value in the columns
    # left of the `+`, then one frame a line from there on (names may hold spaces).
    rule = re.search(r"^(-+)\+-+$", text, re.M)
    check(rule is not None, f"pprof -traces: no rule line in\n{text[:2000]}")
    width = len(rule.group(1))
    out = []
    for block in text.split(rule.group(0))[1:]:
        lines = [line for line in block.splitlines() if line.strip()]
        if lines:
            value = parse_pprof_number(lines[0][:width].strip(), block)
            out.append((value, [line[width:].strip() for line in lines]))
    return out


def case_pprof(args, work):
    pprof = os.path.join(args.work, "tools", "pprof")
    built = subprocess.run(["sh", os.path.join(args.source_dir, "tests/exports/build-pprof.sh"), pprof],
                           capture_output=True, text=True)
    if built.returncode == SKIP:
        raise Skip(built.stderr.strip())
    check(built.returncode == 0, f"build-pprof.sh exited {built.returncode}:\n{built.stderr[-3000:]}")
    for trace in traces(args.source_dir, work):
        heapql = Heapql(args.heapql, trace)
        for options in (["--by", "stack"], ["--by", "stack", "--top", "2"], ["--by", "image,stack"], ["--totals"],
                        ["--by", "stack", "--no-default-cull"]):
            where = f"{os.path.basename(trace)} {' '.join(options)}"
            totals = heapql.json(options)["totals"]
            profile = os.path.join(work, "p.pb.gz")
            heapql.query(options, "pprof", out=profile)
            for sample_index, measure in SAMPLE_TYPES.items():
                total = pprof_total(pprof, profile, sample_index)
                check(total == totals[measure],
                      f"{where}: pprof -top -sample_index={sample_index} total {total}, heapql's {measure} "
                      f"{totals[measure]}")
            types, samples = pprof_raw_samples(pprof, profile)
            check(types == list(SAMPLE_TYPES), f"{where}: pprof -raw sample types {types}")
            for i, sample_index in enumerate(types):
                measure = SAMPLE_TYPES[sample_index]
                total = sum(values[i] for values in samples)
                check(total == totals[measure], f"{where}: pprof -raw {sample_index} adds up to {total}, "
                      f"heapql's {measure} is {totals[measure]}")
            print(f"ok pprof: {where}: -top and -raw totals {', '.join(f'{k}={totals[k]}' for k in MEASURES)}")
        # The default sample type is the query's sort measure.
        for sample_index, measure in SAMPLE_TYPES.items():
            profile = os.path.join(work, "sorted.pb.gz")
            heapql.query(["--sort", measure], "pprof", out=profile)
            text = run([pprof, "-top", profile]).stdout
            check(f"\nType: {sample_index}\n" in text, f"--sort {measure}: pprof's default type is not "
                  f"{sample_index}:\n{text[:400]}")
        # Every stack, whole (no cull): pprof -traces' samples are heapql's rows, frame by frame.
        query = ["--by", "stack", "--no-default-cull"]
        rows = heapql.json(query)["rows"]
        profile = os.path.join(work, "stacks.pb.gz")
        heapql.query(query, "pprof", out=profile)
        samples = sorted(pprof_traces(pprof, profile, "alloc_space"))
        # pprof names a location by its function: the symbol, or unsymbolized the address, without the module.
        expected = sorted((row["st"], [frame.split("!", 1)[1] for frame in row["key"][0]]) for row in rows)
        check(samples == expected, f"{os.path.basename(trace)}: pprof -traces\n  {samples}\nheapql's stacks\n"
              f"  {expected}")
        print(f"ok pprof: {os.path.basename(trace)}: -traces shows heapql's {len(rows)} stacks, "
              f"{sum(len(f) for _, f in samples)} frames")
    check_pprof_labels(args, pprof, work)


def pprof_tags(pprof, profile):
    """`pprof -tags` of alloc_space: {label key: {value: bytes}}."""
    text = run([pprof, "-tags", "-sample_index=alloc_space", "-unit=B", profile]).stdout
    tags, key = {}, None
    for line in text.splitlines():
        if match := re.match(r"^ (\S+): Total ", line):
            key = match.group(1)
            tags[key] = {}
        elif match := re.match(r"^\s+(\d+)(?:\.0)?B \(\s*[\d.]+%\): (.*)$", line):
            check(key is not None, f"pprof -tags: a value before its key:\n{text}")
            tags[key][match.group(2)] = int(match.group(1))
    return tags


def check_pprof_labels(args, pprof, work):
    """Grouping levels other than stack are sample labels: pprof -tags' bytes per
    process and thread are heapql's st per process and thread."""
    trace = os.path.join(work, "events.csv")
    shutil.copyfile(os.path.join(args.source_dir, "tests/data/csv/example.csv"), trace)
    heapql = Heapql(args.heapql, trace)
    profile = os.path.join(work, "labels.pb.gz")
    heapql.query(["--by", "process,thread,stack"], "pprof", out=profile)
    tags = pprof_tags(pprof, profile)
    for level in ("process", "thread"):
        expected = {row["key"][0]: row["st"] for row in heapql.json(["--by", level])["rows"] if row["st"] > 0}
        check(len(expected) >= 1 and tags.get(level) == expected,
              f"pprof -tags {level}: {tags.get(level)}; heapql --by {level}: {expected}")
    print(f"ok pprof: events.csv --by process,thread,stack: -tags gives heapql's st per process and thread "
          f"({tags['thread']})")


# ---- speedscope -------------------------------------------------------------------------------

def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def folded_weights(text):
    """What speedscope's sandwich view should show: each function's (self, total) weight."""
    self_weight, total_weight = {}, {}
    for line in text.splitlines():
        frames, value = line.rsplit(" ", 1)
        names = frames.split(";")
        self_weight[names[-1]] = self_weight.get(names[-1], 0) + int(value)
        for name in set(names):  # a recursive function counts once per stack
            total_weight[name] = total_weight.get(name, 0) + int(value)
    return {name: (self_weight.get(name, 0), total) for name, total in total_weight.items()}


def speedscope_sandwich(chromium, index_html, file_name, data, importer, work):
    """Opens the file in speedscope as its CLI does (a script that calls
    speedscope.loadFileFromBase64, named by #localProfilePath) with the
    sandwich view; returns the table it drew: {function: (self, total)}."""
    script = os.path.join(work, "profile.js")
    with open(script, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps(file_name),
                                                           json.dumps(base64.b64encode(data).decode())))
    # The page reads the script and imports the profile asynchronously; on a
    # busy machine Chromium's time budget may run out first: then again (3
    # loads failed in 2 of 4 runs here under a ctest -j2, 2026-11-30).
    for attempt in range(6):
        table = speedscope_load(chromium, index_html, script, importer)
        if table:
            return table
        print(f"speedscope drew no table (attempt {attempt + 1}), loading the page again")
    raise Failure("speedscope drew no sandwich table in 6 loads")


def speedscope_load(chromium, index_html, script, importer):
    with tempfile.TemporaryDirectory(prefix="heapql-speedscope-") as profile:
        args = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND",
                f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                # Tall enough that the table (a virtual list) draws every row.
                "--window-size=1400,6000", "--virtual-time-budget=30000",
                "--dump-dom", f"file://{index_html}#localProfilePath={script}&view=sandwich"]
        result = subprocess.run(args, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    check(result.returncode == 0, f"chromium exited {result.returncode}:\n{result.stderr[-3000:]}")
    if f'"Importing as {importer}"' not in result.stderr:
        return None
    # Each row: <td>TOTAL (P%)</td> <td>SELF (P%)</td> <td>NAME</td>, with tags between.
    text = re.sub(r"<[^>]*>", "\t", result.stdout)
    cells = [html.unescape(c).strip() for c in text.split("\t") if c.strip()]
    if "Symbol Name" not in cells:
        return None
    cells = cells[cells.index("Symbol Name") + 1:]
    table = {}
    number = re.compile(r"^([\d,]+) \([<>]?[\d.]+%\)$")
    i = 0
    while i + 2 < len(cells) and number.match(cells[i]) and number.match(cells[i + 1]):
        total = int(number.match(cells[i]).group(1).replace(",", ""))
        self_weight = int(number.match(cells[i + 1]).group(1).replace(",", ""))
        table[cells[i + 2]] = (self_weight, total)
        i += 3
    return table


def case_speedscope(args, work):
    chromium = find_chromium()
    if chromium is None:
        raise Skip("Chromium is absent (scripts/install-deps.sh installs it)")
    index_html = os.path.join(args.source_dir, "tests/exports/node_modules/speedscope/dist/release/index.html")
    if not os.path.exists(index_html):
        raise Skip("speedscope is absent: npm ci --prefix tests/exports (scripts/install-deps.sh)")
    for trace in traces(args.source_dir, work):
        heapql = Heapql(args.heapql, trace)
        for query in (["--sort", "so"], ["--sort", "st"],
                      ["--by", "image,stack", "--top", "3", "--sort", "st"]):
            measure = query[-1]
            where = f"{os.path.basename(trace)} {' '.join(query)}"
            folded = heapql.query(query, "folded")
            table = speedscope_sandwich(chromium, index_html, "stacks.folded", folded.encode(),
                                        "collapsed stack format", work)
            expected = folded_weights(folded)
            check(table == expected, f"{where}: speedscope's sandwich table\n  {sorted(table.items())}\n"
                  f"the folded file's\n  {sorted(expected.items())}")
            total = heapql.json(query)["totals"][measure]
            drawn = sum(self_weight for self_weight, _ in table.values())
            check(drawn == total, f"{where}: speedscope's self weights add up to {drawn}, heapql's {measure} "
                  f"total is {total}")
            print(f"ok speedscope: {where}: {len(table)} functions, {drawn} in all")
        # pprof too (docs/reports.md): speedscope shows the default sample type, the --sort measure;
        # counts it prints whole. Its functions are the symbols, without the module.
        query = ["--sort", "stc"]
        profile = os.path.join(work, "heap.pb.gz")
        heapql.query(query, "pprof", out=profile)
        with open(profile, "rb") as f:
            table = speedscope_sandwich(chromium, index_html, "heap.pb.gz", f.read(), "protobuf encoded pprof file",
                                        work)
        symbols = "\n".join(";".join(frame.split("!", 1)[-1] for frame in line.rsplit(" ", 1)[0].split(";"))
                             + " " + line.rsplit(" ", 1)[1] for line in heapql.query(query, "folded").splitlines())
        expected = folded_weights(symbols)
        check(table == expected, f"{os.path.basename(trace)} pprof in speedscope: its sandwich table\n"
              f"  {sorted(table.items())}\nheapql's stacks\n  {sorted(expected.items())}")
        print(f"ok speedscope: {os.path.basename(trace)} --format pprof --sort stc: {len(table)} functions")


# ---- SQLite (the sqlite3 shell) -----------------------------------------------------------------

def sqlite3(db, sql):
    """Rows of the sqlite3 shell's output, as lists of text ('' for NULL)."""
    out = run(["sqlite3", "-readonly", "-separator", "\t", db, sql]).stdout
    return [line.split("\t") for line in out.splitlines()]


def worked_queries(source_dir):
    with open(os.path.join(source_dir, "docs/export.md")) as f:
        doc = f.read()
    queries = re.findall(r"```sql\n(.*?)```", doc, re.S)
    check(len(queries) == 3, f"docs/export.md: {len(queries)} worked queries, this test knows 3")
    return queries


def case_sqlite3(args, work):
    if shutil.which("sqlite3") is None:
        raise Skip("the sqlite3 shell is absent (scripts/install-deps.sh installs it)")
    leaks, require, aifo = worked_queries(args.source_dir)
    trace = traces(args.source_dir, work)[1]  # the example app: real stacks, frees, symbols
    heapql = Heapql(args.heapql, trace)
    db = os.path.join(work, "app.db")
    heapql.export("sqlite", db)

    # Leaks by stack: the doc's query against heapql's rows (ties may come in either order).
    rows = heapql.json(["--by", "stack", "--no-default-cull"])["rows"]
    by_stack = {(r["so"], r["soc"], r["key"][0][0]) for r in rows if r["so"] > 0}
    got = sqlite3(db, leaks)
    check(len(got) == min(10, len(by_stack)), f"leaks by stack: {len(got)} rows")
    for stack_id, so, soc, top_frame in got:
        check((int(so), int(soc), top_frame) in by_stack,
              f"leaks by stack: ({so}, {soc}, {top_frame}) is no row of heapql's --by stack")
    biggest = max(r["so"] for r in rows)
    check(int(got[0][1]) == biggest, f"leaks by stack: first so {got[0][1]}, heapql's biggest {biggest}")
    print(f"ok sqlite3: leaks by stack: {len(got)} rows, each one of heapql's")

    # Everything a function is on the stack of: GLOB on frames.text as --require.
    pattern = "memory_test_app!Allocate*"
    check("'app!Parse*'" in require, "docs/export.md's second query changed")
    got = sqlite3(db, require.replace("'app!Parse*'", f"'{pattern}'"))
    st = heapql.json(["--require", pattern, "--totals"])["totals"]["st"]
    check(st > 0 and got == [[str(st)]], f"--require {pattern}: SQL says {got}, heapql's st {st}")
    print(f"ok sqlite3: the --require query: {st} bytes")

    # AIFO: the doc's 10 s..20 s window, moved into this shorter trace.
    duration = int(sqlite3(db, "SELECT duration_ns FROM trace")[0][0])
    start_ns, end_ns = duration // 4, duration // 2
    check("10e9" in aifo and "20e9" in aifo, "docs/export.md's third query changed")
    got = sqlite3(db, aifo.replace("10e9", str(start_ns)).replace("20e9", str(end_ns)))
    so = heapql.json(["--window", f"{start_ns}ns..{end_ns}ns", "--impacting", "AIFO", "--totals"])["totals"]["st"]
    check(so > 0 and got == [[str(so)]], f"AIFO {start_ns}..{end_ns} ns: SQL says {got}, heapql {so}")
    print(f"ok sqlite3: the AIFO query: {so} bytes")

    # The tables and columns the doc lists, NULL where it says.
    columns = {t: [r[1] for r in sqlite3(db, f"PRAGMA table_info({t})")] for t in TABLES}
    check(columns["blocks"] == ["block_id", "alloc_ns", "free_ns", "size", "stack_id", "pid", "heap", "thread",
                                "kind", "is_realloc", "temporary"], f"blocks' columns {columns['blocks']}")
    check(columns["frames"] == ["frame_id", "module_id", "symbol", "address", "text"], f"{columns['frames']}")
    check(len(columns["trace"]) == 21 and columns["trace"][-1] == "cut", f"trace's columns {columns['trace']}")
    check(sqlite3(db, "SELECT COUNT(*) FROM trace") == [["1"]], "trace: not one row")
    check(sqlite3(db, "SELECT COUNT(*) FROM blocks WHERE pid IS NOT NULL OR heap IS NOT NULL") == [["0"]],
          "blocks: a heaptrack trace has no heap handles, and this file's name no pid: NULL")
    check(sqlite3(db, "SELECT COUNT(*) FROM frames WHERE (symbol IS NULL) = (address IS NULL)") == [["0"]],
          "frames: an address exactly where the symbol is NULL")
    check(sqlite3(db, "SELECT COUNT(*) FROM frames f JOIN modules m USING (module_id) WHERE symbol IS NULL AND "
                      "f.text != m.name || '!' || printf('0x%x', f.address)") == [["0"]],
          "frames: an unsymbolized frame's text is module!0xADDRESS")
    check(sqlite3(db, "SELECT COUNT(*) FROM stack_nodes WHERE parent_id IS NULL") != [["0"]], "no outermost frame")
    check(sqlite3(db, "SELECT COUNT(*) FROM blocks WHERE kind NOT IN ('heap', 'virtual')") == [["0"]], "kind")
    # depth 0 is the allocating frame: the same frame as the stack's own node.
    check(sqlite3(db, "SELECT COUNT(*) FROM stack_frames s JOIN stack_nodes n USING (stack_id) "
                      "WHERE s.depth = 0 AND s.frame_id != n.frame_id") == [["0"]], "stack_frames: depth 0")
    indexes = sorted(tuple(r) for r in sqlite3(db, "SELECT m.tbl_name, i.name FROM sqlite_master m, "
                                                   "pragma_index_info(m.name) i WHERE m.type = 'index'"))
    check(indexes == [("blocks", "alloc_ns"), ("blocks", "stack_id"), ("stack_frames", "frame_id"),
                      ("stack_frames", "stack_id"), ("stack_nodes", "parent_id")], f"indexes {indexes}")
    # Rows in the order blocks end: freed ones by free time, then those alive at the end.
    ends = [r[0] for r in sqlite3(db, "SELECT free_ns FROM blocks ORDER BY rowid")]
    alive = ends.index("") if "" in ends else len(ends)
    check(all(e == "" for e in ends[alive:]), "blocks: a freed block after one alive at the end")
    freed = [int(e) for e in ends[:alive]]
    check(freed == sorted(freed), "blocks: freed blocks not in the order they end")
    print(f"ok sqlite3: columns, NULLs, indexes and row order as docs/export.md says ({len(ends)} blocks)")


# ---- DuckDB -----------------------------------------------------------------------------------

def case_duckdb(args, work):
    script = os.path.join(args.source_dir, "tests/exports/duckdb_query.mjs")
    if not os.path.isdir(os.path.join(args.source_dir, "tests/exports/node_modules/@duckdb/node-api")):
        raise Skip("DuckDB is absent: npm ci --prefix tests/exports (scripts/install-deps.sh)")
    if shutil.which("sqlite3") is None or shutil.which("node") is None:
        raise Skip("node or the sqlite3 shell is absent (scripts/install-deps.sh installs them)")
    # The event CSV too: names with commas and quotes, processes, hex and named heaps.
    events = os.path.join(work, "events.csv")
    shutil.copyfile(os.path.join(args.source_dir, "tests/data/csv/example.csv"), events)
    for trace in traces(args.source_dir, work) + [events]:
        heapql = Heapql(args.heapql, trace)
        name = os.path.basename(trace)
        db = os.path.join(work, name + ".db")
        heapql.export("sqlite", db)
        heapql.export("csv", os.path.join(work, name + ".csv"))
        heapql.export("jsonl", os.path.join(work, name + ".jsonl"))
        checks, statements = [], []
        for table in TABLES:
            info = sqlite3(db, f"PRAGMA table_info({table})")
            columns = [r[1] for r in info]
            expected = sorted(sqlite3(db, f"SELECT * FROM {table}"))
            # Each reader as it is, no options: what a user types first.
            for kind, reader in (("csv", f"read_csv('{work}/{name}.csv/{table}.csv')"),
                                 ("jsonl", f"read_json('{work}/{name}.jsonl/{table}.jsonl')")):
                # Every value as text, NULL as '': as the sqlite3 shell prints them.
                select = ", ".join(f"COALESCE(CAST(\"{c}\" AS VARCHAR), '') AS \"{c}\"" for c in columns)
                statements += [f"SELECT {select} FROM {reader}",
                               f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {reader})"]
                checks.append((table, kind, columns, [r[2] for r in info], expected))
        results = run(["node", script] + statements).stdout.splitlines()
        check(len(results) == len(statements), f"{name}: DuckDB answered {len(results)} of {len(statements)}")
        for i, (table, kind, columns, declared, expected) in enumerate(checks):
            rows, types = json.loads(results[2 * i]), json.loads(results[2 * i + 1])
            got = sorted([row[c] for c in columns] for row in rows)
            check(got == expected, f"{name} {table}.{kind} in DuckDB differs from the SQLite export: "
                  f"{len(got)} rows, {len(expected)} expected; first difference "
                  f"{next(((g, e) for g, e in zip(got, expected) if g != e), None)}")
            types = {t["column_name"]: t["column_type"] for t in types}
            check(list(types) == columns, f"{name} {table}.{kind}: DuckDB's columns {list(types)}")
            # An integer column stays one (its NULLs are empty fields or null, not text); one
            # that is all NULL DuckDB cannot type, and reads as docs/export.md says.
            for at, (column, sql_type) in enumerate(zip(columns, declared)):
                if sql_type == "INTEGER" and any(row[at] for row in expected):
                    check(types[column] in ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT", "HUGEINT"),
                          f"{name} {table}.{kind}: DuckDB reads {column} as {types[column]}")
                elif sql_type == "INTEGER" and expected:
                    untyped = {"csv": "VARCHAR", "jsonl": "JSON"}[kind]
                    check(types[column] == untyped, f"{name} {table}.{kind}: DuckDB reads {column}, all NULL, as "
                          f"{types[column]}, not {untyped} as docs/export.md says")
        print(f"ok duckdb: {name}: every table's csv and jsonl as the SQLite export "
              f"({', '.join(f'{t} {len(c[4])}' for t, c in zip(TABLES, checks[::2]))} rows)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["pprof", "speedscope", "sqlite3", "duckdb"])
    parser.add_argument("--heapql", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work", required=True, help="a folder kept between runs (pprof is built there)")
    args = parser.parse_args()
    # Absolute: files are named to Chromium and DuckDB by path.
    args.heapql, args.source_dir, args.work = map(os.path.abspath, (args.heapql, args.source_dir, args.work))
    os.makedirs(args.work, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"heapql-{args.case}-", dir=args.work) as work:
        try:
            globals()["case_" + args.case](args, work)
        except Skip as skip:
            print(f"skipped: {skip}")
            return SKIP
        except Failure as failure:
            print(f"FAILED: {failure}")
            return 1
    print(f"{args.case}: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
