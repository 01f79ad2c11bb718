#!/usr/bin/env python3
"""Renders a roadmap sheet of datasets/tarot with Debian's headless Chromium and checks that the
picture is an A4 page with text on it, not a blank or an error page. Exits 77 (CTest's skip)
when Chromium is not installed.

usage: tarot_png.py --datum BUILD/cli/datum [--source SOURCE_DIR] [--keep OUT.png]
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
SIZE = (1240, 1754)  # A4 at 150 dpi


def decode_png(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced truecolour PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unexpected PNG kind: depth {depth}, colour {colour}, interlace "
                         f"{interlace}")
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        at = y * (stride + 1)
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def chromium_command(chromium, tmp, *args):
    """Headless Chromium with a profile in tmp and nothing that reaches the network."""
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={os.path.join(tmp, 'profile')}", *args]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datum", required=True)
    ap.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--keep", help="also copy the screenshot here")
    a = ap.parse_args()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("SKIP: chromium is not installed (apt-get install chromium); the sheet was not "
              "rendered")
        return SKIP
    data = os.path.join(a.source, "datasets", "tarot")
    with tempfile.TemporaryDirectory(prefix="datum-png-") as tmp:
        archive, sheets, png = (os.path.join(tmp, n) for n in ("t.h5", "sheets", "sheet.png"))
        subprocess.run([a.datum, "import", "--format", "tarot", os.path.join(data, "AD.csv"),
                        "--players", os.path.join(data, "players.csv"), "--defenses",
                        os.path.join(data, "defenses.csv"), "--penalties",
                        os.path.join(data, "penalties.csv"), "-o", archive], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([a.datum, "tarot", archive, "--sheets", sheets], check=True)
        page = os.path.join(sheets, "attaque-AUBRY_Camille.html")
        cmd = chromium_command(chromium, tmp, f"--screenshot={png}",
                               f"--window-size={SIZE[0]},{SIZE[1]}", "file://" + page)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180,
                           stdin=subprocess.DEVNULL)
        if p.returncode != 0 or not os.path.exists(png):
            print(f"chromium failed ({p.returncode}):\n{p.stderr[-2000:]}")
            return 1
        with open(png, "rb") as f:
            width, height, bpp, rows = decode_png(f.read())
        if a.keep:
            shutil.copy(png, a.keep)
    if (width, height) != SIZE:
        print(f"FAIL: the screenshot is {width}x{height}, not {SIZE[0]}x{SIZE[1]}")
        return 1
    # The page: white paper on a grey screen, black text and rules on it. Count the pixels of
    # each kind; a blank page, an error page or a missing stylesheet changes the proportions.
    white = dark = 0
    dark_rows = set()
    for y, line in enumerate(rows):
        for x in range(0, width * bpp, bpp):
            lum = (line[x] * 299 + line[x + 1] * 587 + line[x + 2] * 114) // 1000
            if lum >= 250:
                white += 1
            elif lum < 100:
                dark += 1
                dark_rows.add(y)
    total = width * height
    print(f"{width}x{height}: {100 * white / total:.1f}% paper, {100 * dark / total:.2f}% ink "
          f"on {len(dark_rows)} rows")
    problems = []
    if white < total // 3:
        problems.append("less than a third of the picture is white paper")
    if dark < total // 500:
        problems.append("almost no dark pixels: no text was drawn")
    if len(dark_rows) < 150:
        problems.append("text on too few rows: not the sheet's table and footer")
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
