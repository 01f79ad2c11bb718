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


def block(text, lang):
    """The first fenced code block of the given language."""
    match = re.search(r"```%s\n(.*?)```" % lang, text, re.S)
    if not match:
        sys.exit("no ```%s block in the document" % lang)
    return match.group(1)


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
