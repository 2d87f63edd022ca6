#!/usr/bin/env python3
"""The HTML report (docs/reports.md) in headless Chromium, with no network.

    run_html_test.py CASE --heapql BIN --source-dir DIR --artifacts DIR [--etl-writer BIN]

CASE is one of: query (the bundled trace by stack), recipe (`heapql run
leaks`), etl (a synthetic ETW trace by process and stack), large (a 100k-row
result from a generated event CSV: the file stays under 5 MB and draws in
under 2 s), hostile (frame and process names that try to inject markup).

Each report is loaded with `#selftest=TERM`: the page searches TERM and
writes what it drew as JSON into the DOM, which --dump-dom hands back. This
script computes what should have been drawn from the report's embedded JSON,
on its own (the tree, its pruning, the search), and compares. A screenshot of
each report is kept in the artifacts folder. Exit 77 (skipped) without
Chromium.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
FLAME_MIN_SHARE = 0.001  # report-ui/src/report.js
FLAME_MAX_FRAMES = 3000
WINDOW = "1400,1000"


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)
    if result.returncode != 0:
        raise Failure(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr}")
    return result


def chromium_args(chromium, profile):
    # No network at all: every host resolves to nowhere, and nothing of
    # Chromium's own (updates, sync, field trials) is allowed to start.
    return [
        chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--disable-extensions", "--disable-default-apps", "--metrics-recording-only",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost", f"--user-data-dir={profile}",
        "--enable-logging=stderr", "--v=0", f"--window-size={WINDOW}", "--hide-scrollbars",
    ]


def load_page(chromium, path, term, virtual_time=True):
    """Loads the page with the self-test on; returns (verdict, chromium's console lines, wall seconds)."""
    with tempfile.TemporaryDirectory(prefix="heapql-html-") as profile:
        args = chromium_args(chromium, profile)
        if virtual_time:
            args.append("--virtual-time-budget=4000")  # transitions finish, timers run out
        url = "file://" + os.path.abspath(path) + "#selftest=" + term
        start = time.monotonic()
        result = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True, timeout=180)
        seconds = time.monotonic() - start
    check(result.returncode == 0, f"chromium exited {result.returncode}:\n{result.stderr[-3000:]}")
    match = re.search(r'<pre id="selftest-verdict"[^>]*>(.*?)</pre>', result.stdout, re.S)
    check(match is not None, "the page has no self-test verdict element")
    text = html.unescape(match.group(1))
    check(text.strip() != "", "the page wrote no self-test verdict (its script did not run to the end)\n"
          + result.stderr[-3000:])
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    return json.loads(text), console, seconds


def screenshot(chromium, path, term, png, window=WINDOW):
    with tempfile.TemporaryDirectory(prefix="heapql-html-") as profile:
        url = "file://" + os.path.abspath(path) + "#selftest=" + term
        args = chromium_args(chromium, profile) + [f"--window-size={window}", "--virtual-time-budget=4000",
                                                   f"--screenshot={png}", url]
        result = subprocess.run(args, capture_output=True, text=True, timeout=180)
    check(result.returncode == 0 and os.path.exists(png), f"no screenshot: {result.stderr[-2000:]}")


def embedded(page_text, element_id):
    match = re.search(r'<script type="application/json" id="' + element_id + r'">(.*?)</script>', page_text, re.S)
    check(match is not None, f"the page embeds no {element_id}")
    raw = match.group(1)
    check("<" not in raw, f"{element_id}: a raw '<' in the embedded JSON")
    # Undo the page's one escape: a \u003c that is not itself escaped (a name
    # may hold the text "\u003c", which JSON writes as \\u003c).
    return re.sub(r"(?<!\\)((?:\\\\)*)\\u003c", r"\1<", raw)


# ---- what the page should draw, computed here ----------------------------------

MEASURES = ["so", "soc", "st", "stc", "src"]


def plural(n, word):
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def row_path(data, row, direction="top-down"):
    stack_level = data["query"]["by"].index("stack") if "stack" in data["query"]["by"] else -1
    path = []
    for level, value in enumerate(row["key"]):
        if level != stack_level:
            path.append(str(value))
        elif not value:
            path.append("[empty stack]")
        else:
            frames = list(value)
            if direction == "top-down":
                frames.reverse()
            path.extend(frames)
    return path


class Node:
    def __init__(self, name):
        self.name = name
        self.m = dict.fromkeys(MEASURES, 0)
        self.kids = {}

    def add(self, measures):
        for m in MEASURES:
            self.m[m] += measures.get(m) or 0


def full_tree(data):
    root = Node("[total]")
    for row in data["rows"]:
        root.add(row)
        node = root
        for label in row_path(data, row):
            node = node.kids.setdefault(label, Node(label))
            node.add(row)
    if data["other"] is not None:
        other = Node(f"[other: {plural(data['other']['rows'], 'more row')}]")
        other.add(data["other"])
        root.add(data["other"])
        root.kids["\0other"] = other
    return root


def drawn_paths(data, measure):
    """Every node the flame graph draws, as its path of names below the root, and the share it hides below."""
    root = full_tree(data)
    share = FLAME_MIN_SHARE
    paths = pruned_paths(root, measure, share)
    while len(paths) > FLAME_MAX_FRAMES:
        share *= 1.25
        paths = pruned_paths(root, measure, share)
    return paths, share


def pruned_paths(root, measure, share):
    total = root.m[measure]
    if not total > 0:
        return []
    floor = total * share
    paths = [()]

    def walk(node, path):
        pruned_count, pruned_value = 0, 0
        for child in node.kids.values():
            value = child.m[measure]
            if value > 0 and value >= floor:
                paths.append(path + (child.name,))
                walk(child, path + (child.name,))
            elif value > 0:
                pruned_count += 1
                pruned_value += value
        if pruned_count and pruned_value >= floor:
            paths.append(path + (f"[pruned: {plural(pruned_count, 'smaller frame')}]",))

    walk(root, ())
    return paths


def search_share(data, term, measure):
    lower = term.lower()
    matched = sum(row.get(measure) or 0 for row in data["rows"]
                  if any(lower in label.lower() for label in row_path(data, row)))
    total = data["totals"][measure] or 1
    return matched / total


def check_report(chromium, page_path, term, name, artifacts, expect_series=True):
    with open(page_path, encoding="utf-8") as f:
        page_text = f.read()
    data = json.loads(embedded(page_text, "heapql-data"))
    page = json.loads(embedded(page_text, "heapql-page"))
    check('http-equiv="Content-Security-Policy"' in page_text and "default-src 'none'" in page_text,
          "the page carries no CSP that forbids loads")
    check(not re.search(r'<(script|link|img|iframe)[^>]+(src|href)=', page_text),
          "the page names an external script, style or image")

    verdict, console, seconds = load_page(chromium, page_path, term)
    check(not console, f"{name}: Chromium logged console messages:\n" + "\n".join(console))
    check(verdict["errors"] == [], f"{name}: errors on the page: {verdict['errors']}")
    check(verdict["violations"] == [], f"{name}: blocked loads: {verdict['violations']}")
    check(verdict["resources"] == [], f"{name}: the page requested {verdict['resources']}")
    check(verdict["pwned"] is None, f"{name}: a name from the trace ran as script: {verdict['pwned']}")

    measure = data["query"]["sort"] if data["totals"][data["query"]["sort"]] is not None else "so"
    expected_measures = [m for m in MEASURES if m != "src" or data["totals"]["src"] is not None]
    check(verdict["measures"] == expected_measures, f"{name}: measures {verdict['measures']} != {expected_measures}")

    # The chart: one point a bucket plus the one that closes the last step.
    series = data.get("series")
    check(bool(series) == expect_series, f"{name}: series present {bool(series)}, expected {expect_series}")
    chart = verdict["chart"]
    if series:
        check(chart["present"] and chart["canvases"] >= 1, f"{name}: no chart drawn: {chart}")
        check(chart["points"] == len(series["max_bytes"]) + 1,
              f"{name}: chart has {chart['points']} points, the series {len(series['max_bytes'])} buckets")
        check(chart["line_pixels"] > 50, f"{name}: the chart's line is not on the canvas: {chart}")
        check(chart["peak_marked"] and chart["window_shaded"], f"{name}: peak or window not drawn: {chart}")

    # The flame graph: the tree computed here, pruned as the page says it prunes.
    flame = verdict["flame"]
    paths, share = drawn_paths(data, measure)
    check(flame["measure"] == measure and flame["direction"] == "top-down", f"{name}: flame shows {flame}")
    check(flame["frames"] == len(paths) and flame["tree_nodes"] == len(paths),
          f"{name}: flame drew {flame['frames']} frames ({flame['tree_nodes']} in its tree), expected {len(paths)}")
    check(flame["labels_drawn"] == len(paths), f"{name}: {flame['labels_drawn']} labels for {len(paths)} frames")
    check(flame["min_share"] == share, f"{name}: the page hides frames below {flame['min_share']}, expected {share}")
    expected = sorted(p for p in paths if p and term.lower() in p[-1].lower())
    got = sorted(tuple(p) for p in flame["highlighted"])
    check(expected, f"{name}: the search term {term!r} matches no frame: pick another")
    check(got == expected, f"{name}: search {term!r} highlighted {len(got)} frames, expected {len(expected)}:\n"
          f"  got      {got[:5]}\n  expected {expected[:5]}")
    matched = search_share(data, term, measure)
    check(flame["search"] is not None and abs(flame["search"]["share"] - matched) < 1e-9,
          f"{name}: search share {flame['search']} != {matched}")

    # The table: every embedded row, then [other] and [total].
    table = verdict["table"]
    check(table["rows"] == len(data["rows"]), f"{name}: table has {table['rows']} rows, data {len(data['rows'])}")
    footer = ([f"[other: {plural(data['other']['rows'], 'more row')}]"] if data["other"] else []) + ["[total]"]
    check(table["footer"] == footer, f"{name}: table footer {table['footer']} != {footer}")

    # Rows plus other still equal the totals after the page's pruning.
    for m in expected_measures:
        summed = sum(row[m] for row in data["rows"]) + (data["other"][m] if data["other"] else 0)
        check(summed == data["totals"][m], f"{name}: rows + other {m} = {summed} != totals {data['totals'][m]}")
    check(page["pruning"]["rows_kept"] == len(data["rows"]), f"{name}: pruning record disagrees with the rows")

    # What a reader sees first, and the whole page down to the table.
    png = os.path.join(artifacts, f"{name}.png")
    screenshot(chromium, page_path, term, png)
    screenshot(chromium, page_path, term, os.path.join(artifacts, f"{name}-tall.png"), window="1400,2800")
    size = os.path.getsize(page_path)
    print(f"{name}: {size:,} bytes, {len(data['rows'])} rows ({page['pruning']['rows_pruned']} pruned), "
          f"chart {chart['points']} points, flame {flame['frames']} frames (hiding those below {share:.2%}), "
          f"search {term!r} {len(got)} frames ({matched:.2%} of {measure}), drawn in {verdict['render_ms']} ms "
          f"{verdict['phases_ms']} "
          f"(chromium {seconds:.1f} s); screenshot {png}")
    return data, page, verdict


# ---- the cases -------------------------------------------------------------------

def case_query(args, chromium, work):
    trace = os.path.join(args.source_dir, "examples/traces/memory_test_app.zst")
    page_path = os.path.join(args.artifacts, "query.html")
    run([args.heapql, "query", trace, "--by", "stack", "--format", "html", "-o", page_path, "--no-progress"])
    data, _, _ = check_report(chromium, page_path, "Operation", "query", args.artifacts)
    # One definition of the data: unpruned, the page embeds what --format json prints.
    plain = run([args.heapql, "query", trace, "--by", "stack", "--format", "json", "--series", "1000",
                 "--no-progress"]).stdout
    with open(page_path, encoding="utf-8") as f:
        check(embedded(f.read(), "heapql-data") == plain,
              "query: the embedded JSON differs from heapql query --format json --series 1000")


def case_recipe(args, chromium, work):
    trace = os.path.join(args.source_dir, "examples/traces/memory_test_app.zst")
    page_path = os.path.join(args.artifacts, "recipe-leaks.html")
    run([args.heapql, "run", "leaks", trace, "--format", "html", "-o", page_path])
    check_report(chromium, page_path, "InnerLoopOperation", "recipe-leaks", args.artifacts)


def case_etl(args, chromium, work):
    etl = os.path.join(work, "MemoryTestApp-synthetic.etl")
    run([args.etl_writer, etl])
    page_path = os.path.join(args.artifacts, "etl.html")
    run([args.heapql, "query", etl, "--by", "process,stack", "--sort", "st", "--format", "html", "-o", page_path,
         "--no-progress", "--no-store"])
    # No PDBs: frames are module!0xOFFSET. Any case matches.
    check_report(chromium, page_path, "memorytestapp.exe!", "etl", args.artifacts)


# A templated C++ name, long as real ones are, and full of '<'.
def frame(module, name, n):
    return f"{module}!ns::detail::{name}<std::vector<Item<{n}>, std::allocator<Item<{n}>>>>::run(int)"


def write_large_csv(path, stacks):
    """`stacks` distinct stacks, each allocating once: 600 of them big enough to matter, the rest tiny."""
    callers = [frame("app", f"Stage{i}", i) for i in range(40)]
    with open(path, "w", encoding="utf-8") as out:
        out.write("time,event,process,thread,heap,address,size,old_address,stack\n")
        for i in range(stacks):
            big = i < 600
            size = 200_000 + 97 * i if big else 64 + i % 50
            # The big ones under a chain of their own, as deep as real stacks: far more
            # frames than the flame graph draws at its first floor.
            own = [frame("app", f"Step{d}", i) for d in range(12)] if big else []
            chain = [frame("app", "Site", i)] + own + [callers[i % 40], callers[(i // 40) % 40],
                                                       callers[(i // 1600) % 40], "app!main", "libc.so.6!__libc_start_main"]
            stack = ";".join(chain)
            # Every frame holds a comma: quote the field (docs/import.md).
            out.write(f"{i * 1000},alloc,demo (42),,,0x{0x10000 + i * 16:x},{size},,\"{stack}\"\n")
            if i % 3 == 0:  # a third freed again: so and st differ
                out.write(f"{i * 1000 + 500},free,demo (42),,,0x{0x10000 + i * 16:x},,,\n")


def case_large(args, chromium, work):
    csv_path = os.path.join(work, "large.csv")
    write_large_csv(csv_path, 100_000)
    page_path = os.path.join(args.artifacts, "large.html")
    run([args.heapql, "query", csv_path, "--by", "stack", "--top", "100000", "--format", "html", "-o", page_path,
         "--no-progress", "--no-store"])
    size = os.path.getsize(page_path)
    check(size < 5 * 1024 * 1024, f"large: the page is {size:,} bytes, over 5 MB")
    data, page, _ = check_report(chromium, page_path, "Stage1<", "large", args.artifacts)
    check(page["pruning"]["rows_before"] == 100_000, f"large: the result had {page['pruning']['rows_before']} rows")
    check(page["pruning"]["rows_pruned"] > 0 and data["other"]["rows"] == page["pruning"]["rows_pruned"],
          "large: the pruning is not recorded in [other]")
    # How long it takes to open, in real time (no virtual clock): the page's
    # own measure from navigation start to drawn, best of three.
    timings = []
    for _ in range(3):
        verdict, console, seconds = load_page(chromium, page_path, "Stage1<", virtual_time=False)
        check(not console and not verdict["errors"], f"large: errors {verdict['errors']} {console}")
        timings.append((verdict["render_ms"], seconds))
    best = min(t[0] for t in timings)
    print(f"large: drawn in {[t[0] for t in timings]} ms from navigation start "
          f"(chromium runs {[round(t[1], 1) for t in timings]} s including its start)")
    check(best < 2000, f"large: the page took {best} ms to draw, over 2 s")


# Frame names are the traced program's to choose: these try to end the data's
# script element, open a comment, inject markup that loads or runs something.
HOSTILE_FRAMES = [
    "evil!</script><script>window.pwned=1</script>",
    "evil!<img src=http://evil.example/x.png onerror=window.pwned=2>",
    "evil!<!--<script>",
    "evil!\"quoted\" & 'single' \\u003c not an escape",
    "evil!<svg onload=window.pwned=3>",
]


def case_hostile(args, chromium, work):
    csv_path = os.path.join(work, "hostile.csv")
    with open(csv_path, "w", encoding="utf-8") as out:
        out.write("time,event,process,thread,heap,address,size,old_address,stack\n")
        for i, name in enumerate(HOSTILE_FRAMES):
            stack = ";".join([name, "app!caller<T>", "app!main"]).replace('"', '""')
            out.write(f'{i * 1000},alloc,"<b>bold</b> (7)",,,0x{0x1000 + i * 16:x},{1000 * (i + 1)},,"{stack}"\n')
    page_path = os.path.join(args.artifacts, "hostile.html")
    run([args.heapql, "query", csv_path, "--by", "process,stack", "--format", "html", "-o", page_path,
         "--no-progress", "--no-store"])
    data, _, verdict = check_report(chromium, page_path, "evil!", "hostile", args.artifacts)
    # The names arrive whole, as text: the highlighted frames are exactly them.
    drawn = sorted(path[-1] for path in verdict["flame"]["highlighted"])
    check(drawn == sorted(HOSTILE_FRAMES), f"hostile: frames drawn as {drawn}")
    check(data["rows"][0]["key"][0] == "<b>bold</b> (7)", "hostile: the process name was changed")


CASES = {"query": case_query, "recipe": case_recipe, "etl": case_etl, "large": case_large, "hostile": case_hostile}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--heapql", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--etl-writer")
    args = parser.parse_args()
    chromium = find_chromium()
    if chromium is None:
        print("SKIPPED: no chromium on this machine (scripts/install-deps.sh installs Debian's)")
        return SKIP
    os.makedirs(args.artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="heapql-html-work-") as work:
        try:
            CASES[args.case](args, chromium, work)
        except Failure as failure:
            print(f"FAILED: {failure}")
            return 1
    print(f"{args.case}: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
