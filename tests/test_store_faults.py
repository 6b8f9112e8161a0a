"""Store faults (issue 9, item 6): each is refused with one clear line before the first
run, or, for a disk that fills during a sweep, stops it with one line and keeps every run
finished before; the file is never taken over or modified when refused."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from test_sweep import BUFFER, base, count_runs, integrity, sha256, write_sweep

import aqmlab
from aqmlab.cli import main
from aqmlab.store import Store, StoreError


@pytest.fixture(scope="module")
def real_store(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("store") / "real.db"
    aqmlab.sweep(base("1s"), {BUFFER: [10, 20, 50]}, runs=10, workers=1, db=db, progress=False)
    return db


@contextlib.contextmanager
def read_only(path: Path):
    """Really read-only for this process: as root (who may write anything) the file or
    directory is made immutable (chattr +i), otherwise its write bits are removed."""
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            pytest.skip("running as root without chattr: cannot make a file read-only")
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"chattr +i failed here: {done.stderr.decode().strip()}")
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        mode = path.stat().st_mode
        path.chmod(mode & ~0o222)
        try:
            yield
        finally:
            path.chmod(mode)


def refuses(capsys, sw: Path, db: Path, fragment: str) -> str:
    """`aqmlab sweep` refuses with exit 2 and one line naming the problem, having run
    nothing."""
    assert main(["sweep", str(sw), "--db", str(db), "--workers", "1", "--no-progress"]) == 2
    out, err = capsys.readouterr()
    assert "runs computed" not in out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], err
    return lines[0]


def test_a_read_only_store_is_refused_before_the_first_run(tmp_path, real_store, capsys):
    db = tmp_path / "ro.db"
    shutil.copyfile(real_store, db)
    sw = write_sweep(tmp_path, 2, [10, 77])
    digest = sha256(db)
    with read_only(db):
        refuses(capsys, sw, db, "is read-only")
    assert sha256(db) == digest
    assert not (tmp_path / "ro.db.timeseries").exists()


def test_a_store_in_a_read_only_directory_is_refused(tmp_path, capsys):
    d = tmp_path / "ro"
    d.mkdir()
    sw = write_sweep(tmp_path, 1, [10])
    with read_only(d):
        refuses(capsys, sw, d / "new.db", "is not writable")
    assert list(d.iterdir()) == []


def test_a_file_where_the_time_series_directory_belongs_is_refused(tmp_path, capsys):
    db = tmp_path / "x.db"
    (tmp_path / "x.db.timeseries").write_text("not a directory")
    sw = write_sweep(tmp_path, 1, [10])
    refuses(capsys, sw, db, "x.db.timeseries exists and is not a directory")
    assert count_runs(db) == 0


def test_a_damaged_page_is_found_before_the_first_run(tmp_path, real_store, capsys):
    db = tmp_path / "damaged.db"
    shutil.copyfile(real_store, db)
    size = db.stat().st_size
    page = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    assert size >= 3 * page, "the store is too small to damage a page other than the header"
    with open(db, "r+b") as f:  # garbage over the last page (a b-tree page of runs)
        f.seek(size - page)
        f.write(bytes(range(256)) * (page // 256))
    digest = sha256(db)
    sw = write_sweep(tmp_path, 1, [10])
    line = refuses(capsys, sw, db, "is damaged (SQLite quick_check:")
    assert "left untouched" in line
    assert sha256(db) == digest


def test_an_empty_foreign_sqlite_file_is_not_taken_over(tmp_path, capsys):
    db = tmp_path / "empty.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (x)")
    con.execute("DROP TABLE t")
    con.commit()
    con.close()
    assert db.stat().st_size > 0
    digest = sha256(db)
    sw = write_sweep(tmp_path, 1, [10])
    refuses(capsys, sw, db, "is a SQLite database but not an aqmlab results store")
    assert sha256(db) == digest
    with pytest.raises(StoreError, match="left untouched"):
        Store(db)


@pytest.fixture
def small_disk(tmp_path):
    """A 600 KiB tmpfs (root only: mount)."""
    d = tmp_path / "small"
    d.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small tmpfs")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(d)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield d
    finally:
        subprocess.run(["umount", "-l", str(d)], check=False)


def test_a_disk_that_fills_mid_sweep_stops_it_with_one_line_and_keeps_the_runs(
    tmp_path, small_disk, capsys
):
    db = small_disk / "x.db"
    sw = write_sweep(tmp_path, 40, [10, 20, 50, 100])  # ~160 runs with time series: > 600 KiB
    assert main(["sweep", str(sw), "--db", str(db), "--workers", "1", "--no-progress"]) == 2
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "the disk or the database is full" in lines[0], err
    assert "run the same command to resume" in lines[0]
    kept = count_runs(db)
    assert 0 < kept < 160
    assert integrity(db) == "ok"
    with Store(db, write=False) as st:  # every stored run has its time series
        for key in st.runs()["key"]:
            assert (small_disk / "x.db.timeseries" / f"{key}.parquet").is_file()
