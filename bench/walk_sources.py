"""Benchmark workload with many unique allocating stacks: parse Python
sources into syntax trees, compile the trees, and copy them through pickle.

The three steps recurse through different C code for every kind of syntax
node (the parser, the tree converters in both directions, the compiler's
visitors, the pickler), so the allocating call stacks follow the shape of
each file: about 1 unique stack per 8 allocation calls, where
compile_stdlib.py gives about 1 per 90. Run under heaptrack with
PYTHONMALLOC=malloc. Usage:
    walk_sources.py ROOT MAX_FILES
"""
import ast
import os
import pickle
import sys


def source_paths(root, max_files):
    paths = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "dist-packages", "__pycache__"))
        paths += [os.path.join(dirpath, name) for name in sorted(filenames) if name.endswith(".py")]
    return paths[:max_files] if max_files else paths


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.__file__)
    max_files = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    walked = 0
    for path in source_paths(root, max_files):
        try:
            with open(path, "rb") as f:
                tree = ast.parse(f.read(), path)
            compile(tree, path, "exec", dont_inherit=True)
            pickle.loads(pickle.dumps(tree))
            walked += 1
        except (OSError, SyntaxError, ValueError, RecursionError):
            pass
    print(f"walked {walked} sources", file=sys.stderr)


if __name__ == "__main__":
    main()
