"""Every reference in the repository points inside it, or is a full citation.

A user's clone has only the tracked files, so a comment or a page that sends the reader to
a file outside the repository sends them nowhere. The rule, on every tracked text file
under crates/, python/, docs/, tests/, benchmarks/, scenarios/, examples/, .ci/ and in README.md,
BENCHMARKS.md and the Makefile:

1. No path to material beside the checkout: no ``../shared`` (nor ``shared/papers``,
   ``shared/algorithms``...) and no ``papers/NNN`` (a paper is cited by authors, title,
   venue, year and section).
2. No absolute machine path: ``/work/``, ``/home/``, ``/root/``, ``/Users/``, ``/tmp/``,
   ``/mnt/``, ``/scratch/`` starting a path (not inside a URL or a longer path). System
   paths that are not references to notes (``/usr/bin/env``, ``/dev/null``, ``/proc``)
   are not matched; a test that writes to a temporary directory uses ``tmp_path`` and
   names no path.
3. Every ``*.md`` path named (a Markdown link target, a path in backticks or in prose)
   is a tracked file, relative to the file that names it, to the repository root or to
   docs/; a bare page name (``psand.md``, no ``/``) may also name the one page of that
   name under docs/ (it must be exactly one). The names of files aqmlab *writes*
   (``report.md``, ``crosscheck.md``, in ``OUTPUT_MD``) are outputs, not references.

``ALLOWED`` lists the exceptions, each with its reason. This file is not scanned (it spells
the patterns out); the self-tests below show that each rule fails on a synthetic string.
"""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCANNED = ["crates", "python", "docs", "tests", "benchmarks", "scenarios", "examples", ".ci"]
SCANNED_FILES = ["README.md", "BENCHMARKS.md", "Makefile"]

OUTSIDE = re.compile(r"\.\./shared\b|\bshared/(?:papers|algorithms|validation|design|perf)\b")
PAPER = re.compile(r"\bpapers/\d{3}")
MACHINE = re.compile(r"(?<![\w.:~/-])/(?:work|home|root|Users|tmp|mnt|scratch)/")
MD_PATH = re.compile(r"(?<![\w.:/~-])((?:\.\.?/)*[\w][\w./-]*\.md)\b")

OUTPUT_MD = {"report.md", "crosscheck.md"}

# (file, the text it may contain): why.
ALLOWED = {
    ("tests/test_structure.py", "../shared"): (
        "the test asserts the built extension does *not* contain that string"
    ),
    ("docs/extending.md", "docs/aqm/thresh_drop.md"): (
        "the page a reader writes for the worked example, not one the repository has"
    ),
    ("docs/extending.md", "aqm/thresh_drop.md"): (
        "the link to that page the guide shows, as docs/scenarios.md will hold it"
    ),
}


def _tracked() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--", *SCANNED, *SCANNED_FILES],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    here = Path(__file__).resolve()
    files = []
    for name in out.decode().split("\0"):
        p = ROOT / name
        if name and p.is_file() and p.resolve() != here:
            files.append(p)
    return files


def _text(p: Path) -> str | None:
    data = p.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def problems(rel: str, text: str, tracked: set[str]) -> list[str]:
    """The rule's violations in one file's text; `tracked` holds the repository's files
    (paths relative to its root)."""
    found = []
    base = Path(rel).parent
    exists = tracked.__contains__
    doc_pages: dict[str, list[str]] = {}
    for f in tracked:
        if f.startswith("docs/") and f.endswith(".md"):
            doc_pages.setdefault(Path(f).name, []).append(f)
    for n, line in enumerate(text.splitlines(), 1):
        for rx, what in ((OUTSIDE, "outside the repository"), (PAPER, "a paper by file")):
            for m in rx.finditer(line):
                if (rel, m.group(0)) not in ALLOWED:
                    found.append(f"{rel}:{n}: {m.group(0)} ({what})")
        for m in MACHINE.finditer(line):
            found.append(f"{rel}:{n}: {m.group(0)} (a machine path)")
        for m in MD_PATH.finditer(line):
            path = m.group(1)
            if Path(path).name in OUTPUT_MD or (rel, path) in ALLOWED:
                continue
            candidates = [(base / path).as_posix(), path, f"docs/{path}"]
            if not any(exists(_norm(c)) for c in candidates) and not (
                "/" not in path and len(doc_pages.get(path, ())) == 1
            ):
                found.append(f"{rel}:{n}: {path} (no such file in the repository)")
    return found


def _norm(path: str) -> str:
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return "\0outside"
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def _all_tracked() -> set[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    return set(out.decode().split("\0")) - {""}


def test_no_reference_leaves_the_repository():
    tracked = _all_tracked()
    files = _tracked()
    scanned = 0
    found = []
    for p in files:
        text = _text(p)
        if text is None:
            continue
        scanned += 1
        found += problems(p.relative_to(ROOT).as_posix(), text, tracked)
    # The repository has several hundred text files here; far fewer means the scan is
    # looking at the wrong tree and would pass by seeing nothing.
    assert scanned > 300, f"only {scanned} files scanned"
    assert not found, "\n".join(found)


def test_the_allowed_exceptions_are_still_needed():
    for (rel, text), why in ALLOWED.items():
        assert text in (ROOT / rel).read_text("utf-8"), f"{rel} no longer needs: {why}"


def test_each_rule_fails_on_a_synthetic_reference():
    tracked = {"docs/queue.md", "docs/aqm/red.md", "README.md"}
    bad = {
        "see ../shared/algorithms.md §1.2": 2,  # outside, and a .md that does not resolve
        "Okuroglu & Oktug (papers/001, §3.2)": 1,
        "# notes in /work/notes/psand.md": 1,  # the machine path (its tail is part of it)
        "the venv /home/me/ns3/bin/python": 1,
        "(design.md habit 11)": 1,
        "[the table](../validation.md)": 1,
    }
    for line, n in bad.items():
        got = problems("docs/aqm/x.md", line, tracked)
        assert len(got) == n, (line, got)
    good = [
        "see [red](red.md) and docs/queue.md, `../queue.md`",
        "writes report.md and bio/report.md; https://example.org/home/x/README.md",
        "#!/usr/bin/env bash > /dev/null; ns-3.44/tmp/x",
    ]
    for line in good:
        assert problems("docs/aqm/x.md", line, tracked) == [], line
