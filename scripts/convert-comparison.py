#!/usr/bin/env python3
"""Whole-process conversion speed: `keepsake convert` against libplist's `plistutil`
and Python's `plistlib`, on the same 100k Homepwner records, binary->XML and
XML->binary. Prints the median of several runs of each and our speed-up.

Usage: scripts/convert-comparison.py [--runs N] [--keepsake PATH]
(build first: swift build -c release)
"""
import argparse, datetime, os, plistlib, random, shutil, statistics, subprocess, sys, tempfile, time, uuid


def records(count):
    rng = random.Random(42)
    adjectives, nouns = ["Fluffy", "Rusty", "Shiny"], ["Bear", "Spork", "Mac"]
    return [{
        "name": f"{rng.choice(adjectives)} {rng.choice(nouns)}",
        "serialNumber": uuid.UUID(int=rng.getrandbits(128)).hex[:5].upper(),
        "valueInDollars": rng.randrange(100),
        "dateCreated": datetime.datetime(2020, 1, 1) + datetime.timedelta(seconds=rng.randrange(10**7)),
        "itemKey": str(uuid.UUID(int=rng.getrandbits(128))),
    } for _ in range(count)]


def median_seconds(command, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keepsake", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "keepsake"))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="keepsake-convert-")
    try:
        binary, xml, out = (os.path.join(work, name) for name in ("in.bplist", "in.xml", "out"))
        data = records(100_000)
        with open(binary, "wb") as f:
            plistlib.dump(data, f, fmt=plistlib.FMT_BINARY)
        with open(xml, "wb") as f:
            plistlib.dump(data, f, fmt=plistlib.FMT_XML)
        python_convert = "import plistlib,sys; plistlib.dump(plistlib.load(open(sys.argv[1],'rb')), open(sys.argv[2],'wb'), fmt=getattr(plistlib, sys.argv[3]))"
        cases = [("binary -> XML", binary, "xml1", "xml", "FMT_XML"), ("XML -> binary", xml, "binary1", "bin", "FMT_BINARY")]
        print(f"{'conversion':<16}{'keepsake':>11}{'plistutil':>11}{'plistlib':>11}{'vs plistutil':>14}{'vs plistlib':>13}")
        for label, source, ours, libplist, python in cases:
            keepsake = median_seconds([args.keepsake, "convert", source, "--format", ours, "-o", out], args.runs)
            plistutil = median_seconds(["plistutil", "-i", source, "-o", out, "-f", libplist], args.runs) if shutil.which("plistutil") else float("nan")
            pylib = median_seconds([sys.executable, "-c", python_convert, source, out, python], args.runs)
            print(f"{label:<16}{keepsake*1000:>9.0f}ms{plistutil*1000:>9.0f}ms{pylib*1000:>9.0f}ms"
                  f"{plistutil/keepsake:>13.1f}x{pylib/keepsake:>12.1f}x")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
