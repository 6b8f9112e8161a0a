"""benchmarks/reproduce_digests.py: what each output's digest covers (fast), and, marked
slow, every reproduction at quick size against the committed reference."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from common import benchmark

ROOT = Path(__file__).resolve().parent.parent


def _module():
    return benchmark("reproduce_digests")


def _store(path: Path, finished_at: float, metrics: str = '{"x": 1}') -> None:
    con = sqlite3.connect(path)
    con.execute(
        "CREATE TABLE runs (key TEXT PRIMARY KEY, engine_version TEXT, point TEXT, "
        "run_index INTEGER, scenario TEXT, metrics TEXT, finished_at REAL)"
    )
    con.execute("CREATE TABLE failures (key TEXT PRIMARY KEY)")
    con.execute(
        "INSERT INTO runs VALUES ('k', '0.1.0', '{}', 0, '{}', ?, ?)", (metrics, finished_at)
    )
    con.commit()
    con.close()


def test_the_wall_time_and_finishing_times_are_left_out_and_nothing_else(tmp_path):
    m = _module()
    a, b = tmp_path / "a" / "rem", tmp_path / "b" / "rem"
    for d, wall, t in ((a, "11.8", 1.0), (b, "93.0", 2.0)):
        d.mkdir(parents=True)
        (d / "report.md").write_text(f"Engine 0.1.0. Wall time {wall} s. Claims holding: 3 of 4.\n")
        (d / "report.html").write_text(f"<p>Engine 0.1.0. Wall time {wall} s. Claims</p>\n")
        (d / "fig.png").write_bytes(b"\x89PNG same")
        _store(d / "quick.db", finished_at=t)
        (d / "quick.db.lock").write_text(str(t))
        (d / "quick.db-wal").write_text(str(t))
    da, db = m.digests(tmp_path / "a"), m.digests(tmp_path / "b")
    assert sorted(da) == ["rem/fig.png", "rem/quick.db", "rem/report.html", "rem/report.md"]
    assert da == db
    assert m.compare(da, db, ["rem"]) == []
    # One metric, one figure byte, one claim count: each is seen.
    (b / "quick.db").unlink()
    _store(b / "quick.db", finished_at=3.0, metrics='{"x": 2}')
    (b / "fig.png").write_bytes(b"\x89PNG diff")
    (b / "report.md").write_text("Engine 0.1.0. Wall time 93.0 s. Claims holding: 2 of 4.\n")
    (b / "extra.parquet").write_bytes(b"PAR1")
    got = m.compare(m.digests(tmp_path / "b"), da, ["rem"])
    assert got == [
        "new      rem/extra.parquet",
        "differs  rem/fig.png",
        "differs  rem/quick.db",
        "differs  rem/report.md",
    ]
    # A paper not run this time is not looked at.
    assert m.compare({}, {"psand/report.md": "x"}, ["rem"]) == []
    assert m.compare({}, {"rem/report.md": "x"}, ["rem"]) == ["missing  rem/report.md"]


def test_the_reference_covers_every_registered_reproduction():
    from aqmlab.reproduce import registry

    ref = json.loads((ROOT / "benchmarks" / "reproduce_digests.json").read_text())
    papers = {k.split("/", 1)[0] for k in ref}
    assert papers == set(registry())
    for p in papers:
        assert f"{p}/report.md" in ref and f"{p}/report.html" in ref


@pytest.mark.slow
def test_every_reproduction_matches_the_committed_digests(tmp_path, capsys):
    """About 2 minutes: every reproduction at quick size, byte for byte the reference."""
    status = _module().main(["--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0, out
