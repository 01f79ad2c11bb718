#!/usr/bin/env python3
"""io_dag.py TEXT_LIB ARCHIVE_LIB: the calls between the files of io/ run one
way (issue 11). From the symbols the object files define and use (nm):
no file of io/text uses a symbol that io/archive defines, and the graph
"file A uses a symbol file B defines" has no cycle. Prints the graph."""
import collections
import re
import subprocess
import sys


def objects(lib):
    """{object name: (defined symbols, undefined symbols)} of a static library."""
    out = subprocess.run(["nm", "-A", lib], capture_output=True, text=True, check=True).stdout
    objs = collections.defaultdict(lambda: (set(), set()))
    for line in out.splitlines():
        m = re.match(r"^.*?\.a:([^:]+):\s*(.*)$", line)
        if not m:
            continue
        obj, fields = m.group(1), m.group(2).split()
        if len(fields) == 3 and fields[1] in "TDRBC":
            objs[obj][0].add(fields[2])
        elif len(fields) == 2 and fields[0] == "U":
            objs[obj][1].add(fields[1])
    return objs


def main():
    text, archive = objects(sys.argv[1]), objects(sys.argv[2])
    files = {("text/" + o): v for o, v in text.items()}
    files.update({("archive/" + o): v for o, v in archive.items()})
    owner = {s: f for f, (defined, _) in files.items() for s in defined}
    uses = {f: sorted({owner[s] for s in used if s in owner and owner[s] != f})
            for f, (_, used) in files.items()}
    bad = 0
    for f in sorted(uses):
        print(f, "->", " ".join(uses[f]))
        for g in uses[f]:
            if f.startswith("text/") and g.startswith("archive/"):
                print(f"FAIL: {f} uses {g}: io/text must not call into io/archive")
                bad = 1
    state = {}

    def visit(f, path):
        nonlocal bad
        state[f] = 1
        for g in uses[f]:
            if state.get(g) == 1:
                print("FAIL: cycle", " -> ".join(path + [f, g]))
                bad = 1
            elif g not in state:
                visit(g, path + [f])
        state[f] = 2

    for f in sorted(uses):
        if f not in state:
            visit(f, [])
    if len(text) < 5 or len(archive) < 5:
        print("FAIL: too few object files read")
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
