#!/usr/bin/env python3
"""Reduce step of a fleet's leak hunt (docs/scale.md): reads the JSON results
of `heapql query TRACE --by stack --format json` (one file per trace, the map
step) and prints the stacks that leak most over all of them: so and soc
summed by stack, with how many traces each stack leaked in.

    reduce_leaks_by_stack.py [--top N] RESULT.json...
"""
import argparse
import json
from collections import defaultdict


def leaks_by_stack(results):
    """{stack (frames, top first): [so, soc, traces]} over RESULTS, each a parsed JSON result."""
    leaks = defaultdict(lambda: [0, 0, 0])
    for result in results:
        for row in result["rows"]:
            # A leaked block of 0 bytes still leaks: soc says whether the stack leaked.
            if row["soc"] == 0:
                continue
            # Rows of one result have distinct keys, so a trace counts once per stack.
            sums = leaks[tuple(row["key"][0])]
            sums[0] += row["so"]
            sums[1] += row["soc"]
            sums[2] += 1
    return leaks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    results = []
    for path in args.results:
        with open(path) as f:
            results.append(json.load(f))
    leaks = leaks_by_stack(results)
    ranked = sorted(leaks, key=lambda s: (-leaks[s][0], s))[: args.top]
    print(f"{'so':>14} {'soc':>10} {'traces':>7}  stack (top frame first)")
    for stack in ranked:
        so, soc, traces = leaks[stack]
        # The top 4 frames, and "..." where the stack goes on.
        shown = " <- ".join(stack[:4]) + (" <- ..." if len(stack) > 4 else "")
        print(f"{so:>14} {soc:>10} {traces:>7}  {shown}")
    print(f"{len(args.results)} traces, {len(leaks)} leaking stacks")


if __name__ == "__main__":
    main()
