#!/usr/bin/env python3
"""heapql.exe under Wine answers as the Linux heapql does, byte for byte except paths.

    same_output_as_linux.py --linux-heapql BIN --windows-heapql EXE --emulator WINE_RUN
                            --source-dir DIR --work DIR [--etl-writer EXE] [--shared-data DIR]

The queries are the golden tests' own (tests/golden/*.golden, each file's first line,
`# command: heapql query {data}/TRACE OPTIONS`): every one's OPTIONS is run by both
builds on every ETL and CSV input, with --format json. The inputs: the ETL samples of
../shared/data/etw (if present), a SYNTHETIC ETL trace written by the Windows build's
write_synthetic_etl (if given), and tests/data/csv/example.csv. One query is also
compared in every other --format (csv, html, folded, pprof, table), `info` in text and
JSON, and `export --to sqlite` through the sqlite3 shell's .dump (the file's bytes hold
page layout that SQLite may choose differently, its rows must not differ).

Paths are the only thing normalized: each input's path as given, and the Windows
spellings Wine gives it (Z:\\... with either slash, JSON-escaped), become {input}.
Exit 77 (skipped) without --linux-heapql: configure build-windows with
-DHEAPQL_LINUX_HEAPQL=<a Linux build's heapql>.
"""
import argparse
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
HEADER = "# command: heapql "
OTHER_FORMATS = ["csv", "html", "folded", "pprof", "table"]


def golden_query_options(golden_dir):
    """OPTIONS of every golden `query {data}/TRACE OPTIONS`, in file order, as words."""
    found = []
    for path in sorted(glob.glob(os.path.join(golden_dir, "*.golden"))):
        with open(path, encoding="utf-8") as f:
            first = f.readline().rstrip("\n")
        words = shlex.split(first[len(HEADER):])
        if not first.startswith(HEADER) or words[:1] != ["query"]:
            continue
        options = words[2:]
        # The answer is compared as JSON (every format once more below).
        while "--format" in options:
            at = options.index("--format")
            del options[at:at + 2]
        found.append((os.path.basename(path), options))
    return found


def path_spellings(path):
    """The path as given and as a Windows program under Wine may print it."""
    absolute = os.path.abspath(path)
    spellings = {path, absolute}
    for p in list(spellings):
        if p.startswith("/"):
            backslashed = "Z:" + p.replace("/", "\\")
            spellings |= {backslashed, "Z:" + p, backslashed.replace("\\", "\\\\")}
    return sorted(spellings, key=len, reverse=True)


def normalized(data, paths):
    for path, name in paths:
        for spelling in path_spellings(path):
            data = data.replace(spelling.encode(), name.encode())
    return data


class Comparison:
    def __init__(self, args):
        self.args = args
        self.compared = 0
        self.failures = []
        self.wine_reruns = 0

    def run(self, command, cwd=None):
        return subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, timeout=600, cwd=cwd)

    def both(self, words, paths, label):
        """Runs `heapql WORDS` with each build; records a failure unless their stdout, stderr and exit codes agree."""
        linux = self.run([self.args.linux_heapql] + words)
        windows = self.run_windows(words)
        self.compared += 1
        for what, a, b in (("exit code", str(linux.returncode).encode(), str(windows.returncode).encode()),
                           ("stdout", normalized(linux.stdout, paths), normalized(windows.stdout, paths)),
                           ("stderr", normalized(linux.stderr, paths), normalized(windows.stderr, paths))):
            if a != b:
                self.failures.append(first_difference(label, what, a, b))
                break
        return linux, windows

    def run_windows(self, words):
        """heapql.exe under Wine, run again (twice at most) when Wine itself failed: under load its
        client now and then loses its server ("wine client error:... sendmsg: Socket operation on
        non-socket" on stderr; docs/testing.md, Windows). Of 190 runs, one such run failed the whole
        comparison; a rerun of the one command is what the ctest-level rerun did for all of them."""
        for _ in range(3):
            windows = self.run([self.args.emulator, self.args.windows_heapql] + words)
            if b"wine client error:" not in windows.stderr:
                break
            self.wine_reruns += 1
        return windows

    def sqlite_dumps(self, trace, paths, label):
        sqlite3 = shutil.which("sqlite3")
        if sqlite3 is None:
            print(f"note: sqlite3 is absent: {label}'s SQLite export not compared")
            return
        dumps = []
        with tempfile.TemporaryDirectory(dir=self.args.work) as work:
            for build in ("linux", "windows"):
                db = os.path.join(work, build + ".db")
                words = ["export", trace, "--to", "sqlite", db, "--no-progress"]
                r = self.run([self.args.linux_heapql] + words) if build == "linux" else self.run_windows(words)
                if r.returncode != 0:
                    self.failures.append(f"{label}: {build} export failed ({r.returncode}): {r.stderr.decode(errors='replace')}")
                    return
                dumps.append(normalized(self.run([sqlite3, db, ".dump"]).stdout, paths + [(db, "{db}")]))
        self.compared += 1
        if dumps[0] != dumps[1]:
            self.failures.append(first_difference(label + " export --to sqlite (.dump)", "dump", dumps[0], dumps[1]))


def first_difference(label, what, a, b):
    a_lines, b_lines = a.split(b"\n"), b.split(b"\n")
    for n, (x, y) in enumerate(zip(a_lines, b_lines), 1):
        if x != y:
            at = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            start = max(0, at - 80)
            return (f"{label}: {what} differs at line {n}, byte {at + 1}:\n  linux:   {x[start:at + 80]!r}\n"
                    f"  windows: {y[start:at + 80]!r}")
    return f"{label}: {what} differs in length: linux {len(a_lines)} lines, windows {len(b_lines)}"


def inputs(args, work):
    found = []
    etw = os.path.join(args.shared_data, "etw")
    if os.path.isdir(etw):
        found += sorted(glob.glob(os.path.join(etw, "*.etl")))
    else:
        print(f"note: {etw} is absent: only the synthetic ETL and the CSV inputs are compared")
    if args.etl_writer:
        synthetic = os.path.join(work, "synthetic.etl")
        r = subprocess.run([args.emulator, args.etl_writer, synthetic], capture_output=True, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise SystemExit(f"write_synthetic_etl failed ({r.returncode}): {r.stderr.decode(errors='replace')}")
        found.append(synthetic)
    found.append(os.path.join(args.source_dir, "tests", "data", "csv", "example.csv"))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--linux-heapql", default="")
    parser.add_argument("--windows-heapql", required=True)
    parser.add_argument("--emulator", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--etl-writer", default="")
    parser.add_argument("--shared-data", default="")
    args = parser.parse_args()
    if not args.linux_heapql:
        print("SKIPPED: no Linux heapql to compare with: configure build-windows with "
              "-DHEAPQL_LINUX_HEAPQL=<path to a Linux build's heapql>")
        return SKIP
    if not os.access(args.linux_heapql, os.X_OK):
        print(f"{args.linux_heapql}: not an executable (HEAPQL_LINUX_HEAPQL)")
        return 1
    args.shared_data = args.shared_data or os.path.join(args.source_dir, "..", "shared", "data")
    data_dir = os.path.join(args.source_dir, "tests", "data")
    os.makedirs(args.work, exist_ok=True)
    comparison = Comparison(args)
    queries = golden_query_options(os.path.join(args.source_dir, "tests", "golden"))
    if len(queries) < 20:
        print(f"expected the golden queries in tests/golden, found {len(queries)}")
        return 1
    with tempfile.TemporaryDirectory(dir=args.work) as work:
        traces = inputs(args, work)
        for trace in traces:
            name = os.path.basename(trace)
            paths = [(trace, "{input}"), (data_dir, "{data}")]
            for golden, options in queries:
                words = [w.replace("{data}", data_dir) for w in options]
                comparison.both(["query", trace] + words + ["--format", "json"], paths, f"{name} {golden}")
            for info in (["info", trace], ["info", trace, "--format", "json"]):
                comparison.both(info, paths, f"{name} {' '.join(info[2:]) or 'info'}")
        # Every other format of one query, on each input (pprof is gzip: its header's OS byte is
        # fixed to 255 on both builds, so the bytes must agree too).
        for trace in traces:
            name = os.path.basename(trace)
            paths = [(trace, "{input}")]
            for form in OTHER_FORMATS:
                comparison.both(["query", trace, "--by", "frame", "--format", form], paths, f"{name} --format {form}")
            comparison.sqlite_dumps(trace, paths, name)
    print(f"{comparison.compared} comparisons of heapql.exe (Wine) with the Linux heapql on {len(traces)} inputs, "
          f"{len(queries)} golden queries each, {len(comparison.failures)} differ"
          + (f" ({comparison.wine_reruns} runs of heapql.exe again after a Wine client error)" if comparison.wine_reruns else ""))
    for failure in comparison.failures:
        print("DIFFERS: " + failure)
    return 1 if comparison.failures else 0


if __name__ == "__main__":
    sys.exit(main())
