"""Benchmark workload: compile Python source in memory, many times.

Run under heaptrack with PYTHONMALLOC=malloc so every object allocation of the
compiler goes through malloc/free. Usage:
    compile_stdlib.py PASSES [ROOT] [MAX_FILES]
"""
import os
import sys


def sources(root, max_files):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "dist-packages", "__pycache__"))
        for name in sorted(filenames):
            if name.endswith(".py"):
                found.append(os.path.join(dirpath, name))
    found = found[:max_files] if max_files else found
    texts = []
    for path in found:
        try:
            with open(path, "rb") as f:
                texts.append((path, f.read()))
        except OSError:
            pass
    return texts


def main():
    passes = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.__file__)
    max_files = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    texts = sources(root, max_files)
    compiled = 0
    for _ in range(passes):
        for path, text in texts:
            try:
                compile(text, path, "exec", dont_inherit=True)
                compiled += 1
            except (SyntaxError, ValueError):
                pass
    print(f"compiled {compiled} sources ({len(texts)} files x {passes} passes)", file=sys.stderr)


if __name__ == "__main__":
    main()
