#!/usr/bin/env python3
"""The HTML report (docs/reports.md) in headless Chromium, with no network.

    run_html_test.py CASE --heapql BIN --source-dir DIR --artifacts DIR [--etl-writer BIN]

CASE is one of: query (the bundled trace by stack), recipe (`heapql run
leaks`), etl (a synthetic ETW trace by process and stack), large (a 100k-row
result from a generated event CSV: the file stays under 5 MB, the result is
pruned into [other]; bench/html-draw.py times its drawing), hostile (frame
and process names that try to inject markup), diff (`heapql diff` of two
generated event CSVs, pruned, and of two windows of the bundled trace;
--full-names).

Each report is loaded with `#selftest=TERM`: the page switches its "full
names" box on and off, searches TERM and writes what it drew as JSON into
the DOM, which --dump-dom hands back. This script computes what should have
been drawn from the report's embedded JSON, on its own (the tree, its
pruning, a diff's colours, the search, the labels), and compares. A
screenshot of each report is kept in the artifacts folder. Exit 77 (skipped)
without Chromium.
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
import urllib.parse

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
        url = "file://" + os.path.abspath(path) + "#selftest=" + urllib.parse.quote(term)
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
        url = "file://" + os.path.abspath(path) + "#selftest=" + urllib.parse.quote(term)
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
    """The row's path from the root as (label, is a stack frame) steps."""
    stack_level = data["query"]["by"].index("stack") if "stack" in data["query"]["by"] else -1
    path = []
    for level, value in enumerate(row["key"]):
        if level != stack_level:
            path.append((str(value), False))
        elif not value:
            path.append(("[empty stack]", False))
        else:
            frames = list(value)
            if direction == "top-down":
                frames.reverse()
            path.extend((frame, True) for frame in frames)
    return path


def is_diff(data):
    return data.get("kind") == "diff"


def row_width(data, row):
    """What a row adds to the flame graph's widths: a diff's B side, A's for a gone row."""
    if not is_diff(data):
        return row
    return row["a"] if row.get("status") == "gone" else row["b"]


def zero():
    return dict.fromkeys(MEASURES, 0)


def add(into, measures):
    for m in MEASURES:
        into[m] += measures.get(m) or 0


class Node:
    def __init__(self, name):
        self.name = name
        self.m, self.a, self.b = zero(), zero(), zero()
        self.kids = {}

    def add_row(self, data, row):
        add(self.m, row_width(data, row))
        if is_diff(data):
            add(self.a, row["a"])
            add(self.b, row["b"])


def full_tree(data):
    root = Node("[total]")
    for row in data["rows"]:
        root.add_row(data, row)
        node = root
        for label, _ in row_path(data, row):
            node = node.kids.setdefault(label, Node(label))
            node.add_row(data, row)
    if data["other"] is not None:
        other = Node(f"[other: {plural(data['other']['rows'], 'more row')}]")
        other.add_row(data, data["other"])
        root.add_row(data, data["other"])
        root.kids["\0other"] = other
    return root


def drawn_paths(data, measure):
    """Every node the flame graph draws: {path of names below the root: its A and B (a diff's)},
    and the share it hides below."""
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
        return {}
    floor = total * share
    paths = {(): (root.a[measure], root.b[measure])}

    def walk(node, path):
        pruned_count, pruned_value, pruned_a, pruned_b = 0, 0, 0, 0
        for child in node.kids.values():
            value = child.m[measure]
            if value > 0 and value >= floor:
                paths[path + (child.name,)] = (child.a[measure], child.b[measure])
                walk(child, path + (child.name,))
            elif value > 0:
                pruned_count += 1
                pruned_value += value
                pruned_a += child.a[measure]
                pruned_b += child.b[measure]
        if pruned_count and pruned_value >= floor:
            paths[path + (f"[pruned: {plural(pruned_count, 'smaller frame')}]",)] = (pruned_a, pruned_b)

    walk(root, ())
    return paths


def frame_set(data):
    stack_level = data["query"]["by"].index("stack") if "stack" in data["query"]["by"] else -1
    return {frame for row in data["rows"] for frame in (row["key"][stack_level] if stack_level >= 0 else [])}


def label_matches(label, is_frame, term, short_names):
    lower = term.lower()
    return lower in label.lower() or (is_frame and lower in short_names.get(label, label).lower())


def search_rows(data, term, short_names):
    return [row for row in data["rows"]
            if any(label_matches(label, is_frame, term, short_names) for label, is_frame in row_path(data, row))]


def search_share(data, term, measure, short_names):
    matched = sum(row.get(measure) or 0 for row in search_rows(data, term, short_names))
    total = data["totals"][measure] or 1
    return matched / total


def check_names(name, data, page, verdict):
    """Frames show their short names (from the page's metadata) unless the page starts with full
    names; the "full names" box switches to the exact ones and back. Other labels never change."""
    short_names = page["short_names"]
    frames = frame_set(data)
    names = verdict["names"]
    full_at_start = page["full_names"]
    check(names["full_at_start"] == full_at_start and names["full_now"] == full_at_start,
          f"{name}: names setting {names['full_at_start']}/{names['full_now']}, page says full_names={full_at_start}")
    for state, full in (("before", full_at_start), ("toggled", not full_at_start), ("after", full_at_start)):
        flame_labels = names[state]["flame"]
        check(flame_labels or not verdict["flame"]["frames"], f"{name}: no flame labels reported ({state})")
        for full_name, is_frame, shown in flame_labels:
            check(is_frame == (full_name in frames), f"{name}: {full_name!r} taken for a frame: {is_frame}")
            expected = full_name if full or not is_frame else short_names.get(full_name, full_name)
            check(shown == expected, f"{name}: {state}, the flame graph labels {full_name!r} {shown!r}, "
                  f"expected {expected!r}")
        for full_name, shown in names[state]["table"]:
            expected = full_name if full else short_names.get(full_name, full_name)
            check(shown == expected, f"{name}: {state}, the table labels {full_name!r} {shown!r}, expected {expected!r}")
    stack_rows = len(frames) > 0
    check(bool(names["before"]["table"]) == stack_rows, f"{name}: table labels reported: {names['before']['table'][:3]}")


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

    diff = is_diff(data)
    totals = data["totals"]["a"] if diff else data["totals"]
    short_names = page["short_names"]
    # The flame graph weighs by the sort measure, or by so where that is
    # unavailable (src for heaptrack) or may be negative (impacting).
    sort = data["query"]["sort"]
    measure = sort if sort in MEASURES and totals[sort] is not None else "so"
    expected_measures = [m for m in MEASURES if m != "src" or totals["src"] is not None]
    check(verdict["kind"] == ("diff" if diff else "result"), f"{name}: the page drew a {verdict['kind']}")
    check(verdict["measures"] == expected_measures, f"{name}: measures {verdict['measures']} != {expected_measures}")

    # The chart: one point a bucket plus the one that closes the last step.
    series = data.get("series")
    check(bool(series) == expect_series, f"{name}: series present {bool(series)}, expected {expect_series}")
    chart = verdict["chart"]
    if series and not series["max_bytes"]:
        # A window with no time of the trace in it: nothing to chart, and the page says why.
        after_end = data["window"]["start_ns"] > data["trace"]["duration_ns"]
        why = "the window starts after the trace ends." if after_end else "the window is empty."
        check(not chart["present"] and chart["empty_text"] == "No time to chart: " + why,
              f"{name}: an empty series shows {chart}")
    elif series:
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
    frames = frame_set(data)
    expected = sorted(p for p in paths if p and label_matches(p[-1], p[-1] in frames, term, short_names))
    got = sorted(tuple(p) for p in flame["highlighted"])
    check(expected, f"{name}: the search term {term!r} matches no frame: pick another")
    check(got == expected, f"{name}: search {term!r} highlighted {len(got)} frames, expected {len(expected)}:\n"
          f"  got      {got[:5]}\n  expected {expected[:5]}")
    if diff:
        rows = search_rows(data, term, short_names)
        searched = {"frames": len(got), "rows": len(rows), "a": sum(r["a"][measure] or 0 for r in rows),
                    "b": sum(r["b"][measure] or 0 for r in rows)}
        searched["delta"] = searched["b"] - searched["a"]
        check(flame["search"] == searched, f"{name}: search found {flame['search']}, expected {searched}")
        matched = searched["delta"]
    else:
        matched = search_share(data, term, measure, short_names)
        check(flame["search"] is not None and abs(flame["search"]["share"] - matched) < 1e-9,
              f"{name}: search share {flame['search']} != {matched}")

    # A diff's colours, read from the drawn rectangles: grown frames red, shrunk blue, the rest grey.
    if diff:
        colors = flame["colors"]
        grown = sorted(p for p, (a, b) in paths.items() if b > a)
        shrunk = sorted(p for p, (a, b) in paths.items() if b < a)
        got_grown = sorted(tuple(p) for p in colors["grown"])
        got_shrunk = sorted(tuple(p) for p in colors["shrunk"])
        check(got_grown == grown, f"{name}: {len(got_grown)} frames coloured as grown, expected {len(grown)}:\n"
              f"  got      {got_grown[:6]}\n  expected {grown[:6]}")
        check(got_shrunk == shrunk, f"{name}: {len(got_shrunk)} frames coloured as shrunk, expected {len(shrunk)}:\n"
              f"  got      {got_shrunk[:6]}\n  expected {shrunk[:6]}")
        check(colors["neutral"] == len(paths) - len(grown) - len(shrunk), f"{name}: {colors['neutral']} grey frames")
        check(flame["delta_scale"] == max(abs(b - a) for a, b in paths.values()),
              f"{name}: colours scaled to a change of {flame['delta_scale']}")

    check_names(name, data, page, verdict)

    # The tooltip: the frame's full name whatever its label, and a line a measure (a diff's: A, B, B - A, change).
    tip = verdict["tooltip"]
    check(tip is not None and tip["shown"] == tip["frame"],
          f"{name}: hovering {tip and tip['frame']!r} (labelled {tip and tip['label']!r}) showed {tip and tip['shown']!r}")
    check([line[0] for line in tip["lines"]] == expected_measures and all(len(line) == (5 if diff else 3)
                                                                         for line in tip["lines"]),
          f"{name}: the tooltip's lines are {tip['lines']}")

    # The table: every embedded row, then [other] and [total]; a diff's new and gone rows marked.
    table = verdict["table"]
    check(table["rows"] == len(data["rows"]), f"{name}: table has {table['rows']} rows, data {len(data['rows'])}")
    footer = ([f"[other: {plural(data['other']['rows'], 'more row')}]"] if data["other"] else []) + ["[total]"]
    check(table["footer"] == footer, f"{name}: table footer {table['footer']} != {footer}")
    for status in ("new", "gone"):
        count = sum(1 for row in data["rows"] if row.get("status") == status)
        check(table[status] == count, f"{name}: {table[status]} rows marked {status}, the data has {count}")

    # Rows plus other still equal the totals after the page's pruning (a diff's on each side and in the delta).
    for part in (("a", "b", "delta") if diff else (None,)):
        pick = (lambda measures: measures[part]) if part else (lambda measures: measures)
        for m in expected_measures:
            summed = sum(pick(row)[m] for row in data["rows"]) + (pick(data["other"])[m] if data["other"] else 0)
            check(summed == pick(data["totals"])[m],
                  f"{name}: rows + other {part or ''} {m} = {summed} != totals {pick(data['totals'])[m]}")
    check(page["pruning"]["rows_kept"] == len(data["rows"]), f"{name}: pruning record disagrees with the rows")

    # What a reader sees first, and the whole page down to the table.
    png = os.path.join(artifacts, f"{name}.png")
    screenshot(chromium, page_path, term, png)
    screenshot(chromium, page_path, term, os.path.join(artifacts, f"{name}-tall.png"), window="1400,2800")
    size = os.path.getsize(page_path)
    if diff:
        found = (f"search {term!r} {len(got)} frames (rows changing {measure} by {matched:+}), "
                 f"{len(flame['colors']['grown'])} frames grown and {len(flame['colors']['shrunk'])} shrunk")
    else:
        found = f"search {term!r} {len(got)} frames ({matched:.2%} of {measure})"
    print(f"{name}: {size:,} bytes, {len(data['rows'])} rows ({page['pruning']['rows_pruned']} pruned), "
          f"chart {chart['points']} points, flame {flame['frames']} frames (hiding those below {share:.2%}), "
          f"{found}, drawn in {verdict['render_ms']} ms {verdict['phases_ms']} "
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


def case_empty_window(args, chromium, work):
    # T..T is the moment T: its peak is what was outstanding then, and there is no time to chart.
    trace = os.path.join(args.source_dir, "examples/traces/memory_test_app.zst")
    page_path = os.path.join(args.artifacts, "empty-window.html")
    run([args.heapql, "query", trace, "--window", "1s..1s", "--at-peak", "--format", "html", "-o", page_path,
         "--no-progress"])
    data, _, verdict = check_report(chromium, page_path, "Operation", "empty-window", args.artifacts)
    check(data["peak"]["time_ns"] == 1_000_000_000 and data["peak"]["bytes"] > 0,
          f"empty-window: the peak is {data['peak']}, not what was outstanding at 1s")
    expected = ("The window is empty (it is [T1, T2) and ends where it begins): no block was allocated in it; "
                "the peak is what was outstanding at 1s.")
    check(expected in verdict["notes"], f"empty-window: the notes are {verdict['notes']}")


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


LARGE_SEARCH = "Stage1<"  # what the large page's self-test searches


def write_large_page(heapql, work, page_path, stacks):
    """The large case's page: every row of `stacks` distinct stacks, by stack (also bench/html-draw.py's)."""
    csv_path = os.path.join(work, "large.csv")
    write_large_csv(csv_path, stacks)
    run([heapql, "query", csv_path, "--by", "stack", "--top", str(stacks), "--format", "html", "-o", page_path,
         "--no-progress", "--no-store"])


def case_large(args, chromium, work):
    page_path = os.path.join(args.artifacts, "large.html")
    write_large_page(args.heapql, work, page_path, 100_000)
    size = os.path.getsize(page_path)
    check(size < 5 * 1024 * 1024, f"large: the page is {size:,} bytes, over 5 MB")
    data, page, _ = check_report(chromium, page_path, LARGE_SEARCH, "large", args.artifacts)
    check(page["pruning"]["rows_before"] == 100_000, f"large: the result had {page['pruning']['rows_before']} rows")
    check(page["pruning"]["rows_pruned"] > 0 and data["other"]["rows"] == page["pruning"]["rows_pruned"],
          "large: the pruning is not recorded in [other]")
    # How long it takes to draw is measured in bench/html-draw.py, not here: a timed test on a
    # shared 2-core machine measures the machine's load.


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


# Two runs of one program: a templated frame that grew, one that shrank, a
# stack only in A (gone), one only in B (new), one unchanged; and many tiny
# stacks, on either side, that the page prunes into [other].
VECTOR_PUSH_BACK = "app!std::vector<int, std::allocator<int> >::push_back(int const&)"
DIFF_SHORT_SEARCH = "<\u2026>::push"  # in the short name of VECTOR_PUSH_BACK only: a search matches either form


def write_diff_csv(path, big, tiny, tiny_tag):
    """`big`: (size, stack top first) allocated once each (the second half freed again, so that
    so and st differ); `tiny`: how many 16-byte stacks of their own under app!Tiny<tag>."""
    with open(path, "w", encoding="utf-8") as out:
        out.write("time,event,process,thread,heap,address,size,old_address,stack\n")
        time_ns = 0
        address = 0x10000
        for i, (size, stack) in enumerate(big):
            for half in (0, 1):
                time_ns += 1000
                address += 16
                field = ";".join(stack).replace('"', '""')
                out.write(f'{time_ns},alloc,demo (7),,,0x{address:x},{size // 2},,"{field}"\n')
                if half == 1 and i % 2 == 0:
                    out.write(f"{time_ns + 500},free,demo (7),,,0x{address:x},,,\n")
        for i in range(tiny):
            time_ns += 1000
            address += 16
            field = f"app!Tiny{tiny_tag}::step{i}(unsigned long);app!Tiny{tiny_tag}::run();app!main"
            out.write(f'{time_ns},alloc,demo (7),,,0x{address:x},16,,"{field}"\n')


def case_diff(args, chromium, work):
    fill = [VECTOR_PUSH_BACK, "app!Cache::fill(unsigned long)", "app!main"]
    parse = ["app!Parser::parse(char const*, unsigned long)", "app!main"]
    same = ["app!Same::alloc()", "app!main"]
    old = ["app!Old::gone<Widget>(Widget const&)", "app!main"]
    fresh = ["app!Fresh::made<std::pair<int, int> >()", "app!main"]
    a_csv, b_csv = os.path.join(work, "a.csv"), os.path.join(work, "b.csv")
    write_diff_csv(a_csv, [(1_000_000, fill), (2_000_000, parse), (300_000, same), (500_000, old)], 300, "A")
    write_diff_csv(b_csv, [(4_000_000, fill), (1_200_000, parse), (300_000, same), (700_000, fresh)], 1500, "B")
    page_path = os.path.join(args.artifacts, "diff.html")
    run([args.heapql, "diff", a_csv, b_csv, "--top", "100000", "--format", "html", "-o", page_path,
         "--no-progress", "--no-store"])
    data, page, verdict = check_report(chromium, page_path, DIFF_SHORT_SEARCH, "diff", args.artifacts,
                                       expect_series=False)
    check(page["pruning"]["rows_before"] == 1805 and page["pruning"]["rows_pruned"] > 0
          and data["other"]["rows"] == page["pruning"]["rows_pruned"],
          f"diff: the page's pruning is not recorded in [other]: {page['pruning']}")
    statuses = {tuple(row["key"][0]): row["status"] for row in data["rows"]}
    check(statuses[tuple(old)] == "gone" and statuses[tuple(fresh)] == "new" and statuses[tuple(fill)] == "both",
          "diff: new and gone rows are not where the traces put them")
    colors = verdict["flame"]["colors"]
    check(["app!main", fill[1], fill[0]] in colors["grown"] and ["app!main", parse[0]] in colors["shrunk"]
          and ["app!main", old[0]] in colors["shrunk"] and ["app!main", fresh[0]] in colors["grown"],
          f"diff: a frame is not coloured as its stack changed: {colors}")
    # Short names by default, written here by hand; the box shows the exact name.
    names = verdict["names"]
    check([VECTOR_PUSH_BACK, True, "app!std::vector<\u2026>::push_back"] in names["before"]["flame"],
          f"diff: {VECTOR_PUSH_BACK!r} is not labelled by its short name: {names['before']['flame'][:8]}")
    check([VECTOR_PUSH_BACK, "app!std::vector<\u2026>::push_back"] in names["before"]["table"],
          f"diff: the table does not show {VECTOR_PUSH_BACK!r} short: {names['before']['table'][:4]}")
    check([VECTOR_PUSH_BACK, True, VECTOR_PUSH_BACK] in names["toggled"]["flame"]
          and [VECTOR_PUSH_BACK, VECTOR_PUSH_BACK] in names["toggled"]["table"],
          "diff: the \"full names\" box does not show the exact name")

    # Two windows of one trace, written with --full-names: unpruned, the page embeds what
    # --format json prints, and starts with the exact names.
    trace = os.path.join(args.source_dir, "examples/traces/memory_test_app.zst")
    windows = [trace, "--window-a", "0s..1.3s", "--window-b", "1.3s..", "--no-progress"]
    page_path = os.path.join(args.artifacts, "diff-windows.html")
    run([args.heapql, "diff", *windows, "--full-names", "--format", "html", "-o", page_path])
    data, page, _ = check_report(chromium, page_path, "Operation", "diff-windows", args.artifacts,
                                 expect_series=False)
    check(page["full_names"] is True, "diff-windows: --full-names did not reach the page")
    plain = run([args.heapql, "diff", *windows, "--format", "json"]).stdout
    with open(page_path, encoding="utf-8") as f:
        check(embedded(f.read(), "heapql-data") == plain,
              "diff-windows: the embedded JSON differs from heapql diff --format json")


def case_impacting_sort(args, chromium, work):
    # Rows ranked by impacting size: the page lists them in that order and
    # draws its flame graph by so.
    trace = os.path.join(args.source_dir, "examples/traces/memory_test_app.zst")
    page_path = os.path.join(args.artifacts, "impacting-sort.html")
    run([args.heapql, "query", trace, "--window", "1s..", "--impacting", "AIFO,AOFI", "--sort", "impacting",
         "--format", "html", "-o", page_path, "--no-progress"])
    data, _, verdict = check_report(chromium, page_path, "Operation", "impacting-sort", args.artifacts)
    changes = [abs(row["impacting"]) for row in data["rows"]]
    check(changes and changes == sorted(changes, reverse=True),
          f"impacting-sort: the rows are not by |impacting|, biggest first: {changes[:10]}")
    check(verdict["flame"]["measure"] == "so", f"impacting-sort: the flame graph weighs by {verdict['flame']}")
    headings = verdict["table"]["headings"]
    check(headings[-4:] == ["count", "size", "impacting", "key"], f"impacting-sort: the rows table's headings are {headings}")
    first = data["rows"][0]["impacting"]
    shown = verdict["table"]["first_row"][headings.index("impacting")]
    check(shown.startswith("-") == (first < 0), f"impacting-sort: the first row's impacting {first} shows as {shown!r}")


CASES = {"impacting_sort": case_impacting_sort, "query": case_query, "empty_window": case_empty_window, "diff": case_diff, "recipe": case_recipe, "etl": case_etl, "large": case_large, "hostile": case_hostile}


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
