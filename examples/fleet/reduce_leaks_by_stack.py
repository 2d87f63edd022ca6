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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    so = defaultdict(int)
    soc = defaultdict(int)
    traces = defaultdict(int)
    for path in args.results:
        with open(path) as f:
            result = json.load(f)
        for row in result["rows"]:
            stack = tuple(row["key"][0])  # frames, top first
            if row["so"] == 0:
                continue
            so[stack] += row["so"]
            soc[stack] += row["soc"]
            traces[stack] += 1
    ranked = sorted(so, key=lambda s: (-so[s], s))[: args.top]
    print(f"{'so':>14} {'soc':>10} {'traces':>7}  stack (top frame first)")
    for stack in ranked:
        # The top 4 frames, and "..." where the stack goes on.
        shown = " <- ".join(stack[:4]) + (" <- ..." if len(stack) > 4 else "")
        print(f"{so[stack]:>14} {soc[stack]:>10} {traces[stack]:>7}  {shown}")
    print(f"{len(args.results)} traces, {len(so)} leaking stacks")


if __name__ == "__main__":
    main()
