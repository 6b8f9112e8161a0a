"""Digests of every reproduction's output, against the committed reference.

    .venv/bin/python benchmarks/reproduce_digests.py [--out DIR] [--papers rem psand ...]
        [--reference benchmarks/reproduce_digests.json] [--write]

Runs `aqmlab reproduce [PAPER] --quick --no-progress --out DIR` (which writes DIR/PAPER) for
each registered reproduction (all of them by default) unless DIR/PAPER/report.md exists, then
reduces each output file to a SHA-256 digest and compares the digests with the reference
file: a line per file that differs, is missing or is new, and exit status 1 if any does.
`--write` writes the reference instead (for a change that means to alter results; its
commit says why).

Issue 15 asks that a change to the engine's hot path leave both reproductions'
reports byte-identical, the event order being part of determinism. What a file's digest
covers:
- report.md and report.html: the text without the "Wall time N s." sentence (the only
  figure that depends on the machine);
- a JSON file (the CIOQ run cache): its content, keys sorted (its runs are listed in the
  order the workers finished them);
- figures (PNG), the Parquet time series and any other file: bytes;
- a results store (*.db): its `runs` rows by key (key, engine version, point, run index,
  scenario, metrics), without `finished_at`, and the count of its `failures` (read through
  SQLite, so its write-ahead log counts; the lock file and SQLite's side files are skipped).
The figures and Parquet files are byte-identical only with the pinned matplotlib, pandas
and pyarrow (requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reproduce_digests.json"
WALL_TIME = re.compile(r" ?Wall time [0-9.]+ s\.")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def store_digest(path: Path) -> str:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT key, engine_version, point, run_index, scenario, metrics FROM runs ORDER BY key"
        ).fetchall()
        failures = con.execute("SELECT COUNT(*) FROM failures").fetchone()[0]
    finally:
        con.close()
    return sha(json.dumps({"runs": rows, "failures": failures}).encode())


def file_digest(path: Path) -> str | None:
    """The digest of one output file, or None for a file that is not compared."""
    if path.name.endswith((".lock", ".db-wal", ".db-shm", ".db-journal")):
        return None  # a store's lock and SQLite's side files: the store's rows count
    if path.suffix == ".db":
        return store_digest(path)
    if path.name in ("report.md", "report.html"):
        return sha(WALL_TIME.sub("", path.read_text(encoding="utf-8")).encode())
    if path.suffix == ".json":
        # The CIOQ run cache lists its runs in the order the workers finished them.
        data = json.loads(path.read_text(encoding="utf-8"))
        return sha(json.dumps(data, sort_keys=True).encode())
    return sha(path.read_bytes())


def digests(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and (d := file_digest(p)) is not None:
            out[p.relative_to(root).as_posix()] = d
    return out


def papers() -> list[str]:
    from aqmlab.reproduce import registry

    return sorted(registry())


def reproduce(names: list[str], root: Path) -> None:
    """Runs the reproductions in `names` whose report is not in ROOT/PAPER yet (`aqmlab
    reproduce` writes a paper's outputs there); all of them in one call when none is."""
    todo = [p for p in names if not (root / p / "report.md").exists()]
    if not todo:
        return
    cli = Path(sys.executable).with_name("aqmlab")
    base = [str(cli), "reproduce", "--quick", "--no-progress", "--out", str(root)]
    calls = [base] if sorted(todo) == papers() else [[*base, p] for p in todo]
    for cmd in calls:
        print("$", " ".join(cmd), file=sys.stderr, flush=True)
        done = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True)
        print(done.stdout, end="", file=sys.stderr)


def compare(got: dict[str, str], want: dict[str, str], scope: list[str]) -> list[str]:
    """Lines for the files that differ; the reference's files outside `scope` (papers not
    run this time) are not looked at."""
    want = {k: v for k, v in want.items() if k.split("/", 1)[0] in scope}
    lines = []
    for k in sorted(set(got) | set(want)):
        if k not in want:
            lines.append(f"new      {k}")
        elif k not in got:
            lines.append(f"missing  {k}")
        elif got[k] != want[k]:
            lines.append(f"differs  {k}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="reports directory (default: a fresh temporary one)")
    ap.add_argument("--papers", nargs="+", help="registered names (default: all)")
    ap.add_argument("--reference", type=Path, default=REFERENCE)
    ap.add_argument("--write", action="store_true", help="write the reference instead")
    args = ap.parse_args(argv)
    names = args.papers or papers()
    unknown = sorted(set(names) - set(papers()))
    if unknown:
        ap.error(f"--papers: {unknown} not registered (registered: {papers()})")
    if args.write and args.papers:
        ap.error("--write records every reproduction: leave out --papers")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.out or Path(tmp)
        reproduce(names, root)
        got = {k: v for k, v in digests(root).items() if k.split("/", 1)[0] in names}
    if args.write:
        args.reference.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(got)} digests to {args.reference}")
        return 0
    want = json.loads(args.reference.read_text())
    diff = compare(got, want, names)
    for line in diff:
        print(line)
    print(f"{len(got)} files of {len(names)} reproductions: {len(diff)} differ from the reference")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
