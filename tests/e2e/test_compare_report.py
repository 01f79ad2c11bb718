#!/usr/bin/env python3
"""The report of `datum compare --report DIR`, rendered by Debian's headless Chromium: the DOM
it builds has every section, each with its figure (inline SVG), the tables, the command line
and the machine; the page loads nothing from elsewhere; the screenshot is not blank (text,
and the heat map's blues). Exits 77 (CTest's skip) when Chromium is not installed.

usage: test_compare_report.py --datum BUILD/cli/datum [--keep OUT.png]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tarot_png import chromium_command, decode_png  # noqa: E402

SKIP = 77
SECTIONS = ("summary", "correlations", "rank-changes", "continuity", "truth", "scheveningen",
            "machine")
METHODS = ("nbb:wbf", "bastille:linear", "par:wbf", "mean:trim=1:round=away", "cross", "barking",
           "mp", "rate")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--keep", help="also copy the screenshot here")
    a = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("SKIP: chromium is not installed (apt-get install chromium); the report was not "
              "rendered")
        return SKIP
    problems = []
    with tempfile.TemporaryDirectory(prefix="datum-compare-") as tmp:
        archive, report, png = (os.path.join(tmp, n) for n in ("a.h5", "report", "page.png"))
        subprocess.run([a.datum, "generate", "-o", archive], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([a.datum, "compare", archive, *sum((["--method", m] for m in METHODS), []),
                        "--sample", "2000", "--report", report], check=True,
                       stdout=subprocess.DEVNULL)
        names = sorted(os.listdir(report))
        want = ["continuity.csv", "index.html", "methods.csv", "pairs.csv", "rank_changes.csv"]
        if names != want:
            problems.append(f"the report holds {names}, not {want}")
        page = os.path.join(report, "index.html")
        with open(page, encoding="utf-8") as f:
            html = f.read()
        if re.search(r"(src|href)=['\"]?(https?:)?//", html) or "<script" in html:
            problems.append("the page refers to something outside itself")
        p = subprocess.run(chromium_command(chromium, tmp, "--dump-dom", "file://" + page),
                           capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
        dom = p.stdout
        if p.returncode != 0 or "</html>" not in dom:
            print(f"chromium --dump-dom failed ({p.returncode}):\n{p.stderr[-2000:]}")
            return 1
        for sid in SECTIONS:
            m = re.search(rf'<section id="{sid}">(.*?)</section>', dom, re.S)
            if not m:
                problems.append(f"no section {sid} in the DOM")
                continue
            body = m.group(1)
            if sid not in ("summary", "machine") and "<svg" not in body:
                problems.append(f"section {sid} has no figure")
            if sid != "scheveningen" and "<table" not in body:
                problems.append(f"section {sid} has no table")
        for method in METHODS:
            if method not in dom:
                problems.append(f"method {method} not shown")
        if "--report" not in dom or "threads used" not in dom:
            problems.append("the command line or the machine is missing")
        p = subprocess.run(chromium_command(chromium, tmp, f"--screenshot={png}",
                                        "--window-size=1200,2400", "file://" + page),
                           capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
        if p.returncode != 0 or not os.path.exists(png):
            print(f"chromium --screenshot failed ({p.returncode}):\n{p.stderr[-2000:]}")
            return 1
        with open(png, "rb") as f:
            width, height, bpp, rows = decode_png(f.read())
        if a.keep:
            shutil.copy(png, a.keep)
    white = dark = blue = 0
    for line in rows:
        for x in range(0, width * bpp, bpp):
            r, g, b = line[x], line[x + 1], line[x + 2]
            lum = (r * 299 + g * 587 + b * 114) // 1000
            white += lum >= 250
            dark += lum < 100
            blue += b > 150 and b - r > 60  # the heat map's cells
    total = width * height
    print(f"{width}x{height}: {100 * white / total:.1f}% white, {100 * dark / total:.2f}% ink, "
          f"{100 * blue / total:.2f}% blue")
    if white > total * 0.97:
        problems.append("the page is (almost) blank")
    if dark < total // 400:
        problems.append("almost no text was drawn")
    if blue < total // 100:
        problems.append("no heat map drawn")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
