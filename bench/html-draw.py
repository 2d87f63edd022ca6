#!/usr/bin/env python3
"""How long the HTML report takes to draw a large result, in headless Chromium.

    bench/html-draw.py [--heapql build/heapql] [--stacks 100000] [--repeat 5]

Writes the event CSV of tests/html's `large` case (STACKS distinct deep,
templated stacks, 600 big and the rest tiny), has heapql write its
`--by stack --top STACKS` HTML page, and opens the page REPEAT times in real
time (no virtual clock). Prints the page's size and, for each load, the
page's own measure from navigation start to drawn (its self-test's
`render_ms`) and Chromium's whole run; then the best and the median.

Not a test: tests/html checks what the page draws; this times it, on a
quiet machine.
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "html"))
import run_html_test as html_test  # noqa: E402  (the browser tests' page writer and loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--heapql", default="build/heapql")
    parser.add_argument("--stacks", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.stacks < 600 or args.repeat < 1:
        parser.error("--stacks is at least 600 (the big ones) and --repeat at least 1")
    chromium = html_test.find_chromium()
    if chromium is None:
        sys.exit("html-draw: no chromium on this machine (scripts/install-deps.sh installs Debian's)")
    with tempfile.TemporaryDirectory(prefix="heapql-html-draw-") as work:
        page_path = os.path.join(work, "large.html")
        html_test.write_large_page(args.heapql, work, page_path, args.stacks)
        print(f"page: {os.path.getsize(page_path):,} bytes, {args.stacks:,} rows before pruning")
        drawn = []
        for i in range(args.repeat):
            verdict, console, seconds = html_test.load_page(chromium, page_path, html_test.LARGE_SEARCH,
                                                            virtual_time=False)
            if console or verdict["errors"]:
                sys.exit(f"html-draw: the page reported errors: {verdict['errors']} {console}")
            drawn.append(verdict["render_ms"])
            print(f"load {i + 1}: drawn in {verdict['render_ms']} ms {verdict['phases_ms']} "
                  f"(chromium {seconds:.1f} s with its start)")
    print(f"drawn: best {min(drawn)} ms, median {statistics.median(drawn):.0f} ms over {len(drawn)} loads")


if __name__ == "__main__":
    try:
        main()
    except html_test.Failure as failure:
        sys.exit(f"html-draw: {failure}")
