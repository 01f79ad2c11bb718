"""Runs the example of docs/archive-format.md as its reader would.

Usage: doc_example.py DOC.md IO_TOOL

Imports the document's example CSV with our code (io_tool), reads the archive
with the document's h5py program alone and compares what it prints with the
document's expected output. Then checks that files made by h5py which are not
archives are refused with a clear message.
"""
import os
import re
import subprocess
import sys
import tempfile

import h5py


def block(text, lang, nth=0):
    """The nth fenced code block of the given language."""
    blocks = re.findall(r"```%s\n(.*?)```" % lang, text, re.S)
    if len(blocks) <= nth:
        sys.exit("no ```%s block number %d in the document" % (lang, nth + 1))
    return blocks[nth]


def expect_refusal(tool, folder, name, message):
    run = subprocess.run([tool, "open", name], cwd=folder, capture_output=True, text=True)
    if run.returncode != 1 or run.stderr != message + "\n":
        sys.exit("%s: expected %r, got %r (status %d)" % (name, message, run.stderr, run.returncode))


def main():
    doc, tool = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    csv, program, expected = block(text, "csv"), block(text, "python"), block(text, "text")
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "results.csv"), "w", encoding="utf-8") as f:
            f.write(csv)
        subprocess.run([tool, "import", "results.h5", "results.csv"], cwd=folder, check=True)
        run = subprocess.run([sys.executable, "-c", program, "results.h5"], cwd=folder,
                             capture_output=True, text=True, check=True)
        if run.stdout != expected:
            sys.exit("the example printed:\n%s\ninstead of:\n%s" % (run.stdout, expected))
        # Format version 2: the same rows as a base and two segments, read by the document's
        # second program, print the same.
        lines = csv.splitlines(keepends=True)
        parts = [[lines[0]] + [l for l in lines[1:] if cond(l)] for cond in (
            lambda l: l.startswith("Spring"), lambda l: l.startswith("Club"))]
        for k, rows in enumerate(parts):
            with open(os.path.join(folder, "part%d.csv" % k), "w", encoding="utf-8") as f:
                f.writelines(rows)
        subprocess.run([tool, "import", "v2.h5", "part0.csv"], cwd=folder, check=True)
        subprocess.run([tool, "append", "v2.h5", "part1.csv"], cwd=folder, check=True)
        for name in ("v2.h5", "results.h5"):
            run = subprocess.run([sys.executable, "-c", block(text, "python", 1), name],
                                 cwd=folder, capture_output=True, text=True, check=True)
            if run.stdout != expected:
                sys.exit("the version 2 example printed on %s:\n%s\ninstead of:\n%s"
                         % (name, run.stdout, expected))

        with h5py.File(os.path.join(folder, "foreign.h5"), "w") as f:
            f["x"] = [1, 2, 3]
        expect_refusal(tool, folder, "foreign.h5", "foreign.h5: not a datum archive")
        with h5py.File(os.path.join(folder, "claims.h5"), "w") as f:
            f.attrs["format"] = "datum-archive"
            f.attrs["format_version"] = 1
        expect_refusal(tool, folder, "claims.h5",
                       "claims.h5: damaged archive: attribute n_results is missing or not an integer")
    print("ok")


if __name__ == "__main__":
    main()
