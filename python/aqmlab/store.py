"""The results store: one SQLite file, one row per finished run.

A run is keyed by a hash of its canonical scenario (sorted keys, units normalised by the
engine, the replication index included) and the engine version, so a result is reused only
for exactly the same run by exactly the same engine; runs of other engine versions stay in
the file but are never mixed in. Every run is committed durably (WAL journal, synchronous
FULL) before it is reported done, so killing the process at any moment loses no finished
run and cannot corrupt the file; the next invocation resumes. A file that is not an aqmlab
store, or not a database at all, is refused with a clear error and never modified.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import itertools
import json
import os
import shlex
import sqlite3
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

# pandas and numpy load on first use: `aqmlab --help` and `validate` never need them.
if TYPE_CHECKING:
    import pandas as pd


APPLICATION_ID = 0x41514D4C  # "AQML"
SCHEMA_VERSION = 1


class StoreError(Exception):
    """The file cannot be used as a results store (it is left untouched)."""


def run_key(canonical: dict[str, Any], engine_version: str) -> str:
    """The identity of one run: canonical scenario (with its run index) + engine version."""
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{engine_version}\n{text}".encode()).hexdigest()


_tmp_names = itertools.count()


class StoreLock:
    """An advisory lock on ``<db>.lock`` held for a whole sweep, so that two sweeps on one
    store do not both compute every run: the second waits (saying so), then finds the
    first's runs finished. The lock dies with its process, however it ends."""

    def __init__(self, db: str | Path):
        self.path = Path(db).with_name(Path(db).name + ".lock")
        self.fd: int | None = None

    def __enter__(self) -> StoreLock:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot create the lock file {self.path}: {e.strerror}") from e
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            db = self.path.with_suffix("")
            print(f"waiting for another sweep on {db} (pid {holder})", file=sys.stderr)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self.fd, 0)
            os.close(self.fd)  # releases the lock
            self.fd = None


def _full(e: BaseException) -> bool:
    return (isinstance(e, sqlite3.OperationalError) and "full" in str(e)) or (
        isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT)
    )


class Store:
    """``write=False`` opens an existing store for reading only (``aqmlab results``)."""

    def __init__(self, path: str | Path, write: bool = True):
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"{self.path} is not a file")
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if write:
            self._check_writable(fresh)
        try:
            con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot open ({e})") from e
        try:
            app = con.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as e:
            con.close()
            raise StoreError(
                f"{self.path} is not a readable SQLite database ({e}); it was left untouched"
            ) from e
        if fresh:
            try:
                self._create(con)
            except sqlite3.Error as e:
                con.close()
                raise StoreError(f"{self.path}: cannot create the store ({e})") from e
        elif app != APPLICATION_ID:
            con.close()
            raise StoreError(
                f"{self.path} is a SQLite database but not an aqmlab results store "
                f"(application_id {app:#x}, tables {sorted(tables)}); it was left untouched"
            )
        else:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                con.close()
                raise StoreError(
                    f"{self.path} is an aqmlab store of schema {version}; this aqmlab reads "
                    f"{SCHEMA_VERSION}; it was left untouched"
                )
        if not fresh:
            # A damaged page would otherwise surface as a raw error mid-sweep, after hours.
            try:
                check = con.execute("PRAGMA quick_check").fetchall()
            except sqlite3.DatabaseError as e:
                check = [(str(e),)]
            if check != [("ok",)]:
                con.close()
                first = "; ".join(str(r[0]) for r in check[:3])
                raise StoreError(
                    f"{self.path} is damaged (SQLite quick_check: {first}); it was left "
                    "untouched: move it aside, or recover it with `sqlite3 FILE .recover`"
                )
        if write:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=FULL")
        self.con = con

    def _check_writable(self, fresh: bool) -> None:
        """Refuses, before a sweep computes anything, a store it could not write to."""
        where = self.path.parent if self.path.parent != Path("") else Path(".")
        if not where.is_dir():
            raise StoreError(f"cannot create {self.path}: {where} is not a directory")
        # SQLite's WAL journal and the time-series directory live beside the database.
        if not os.access(where, os.W_OK | os.X_OK):
            raise StoreError(
                f"{self.path}: the directory {where} is not writable (the store writes its "
                "journal and time series beside the database)"
            )
        if not fresh and not os.access(self.path, os.W_OK):
            raise StoreError(f"{self.path} is read-only: a sweep must write its runs to it")
        ts = self.timeseries_dir
        if ts.exists() and not ts.is_dir():
            raise StoreError(
                f"{ts} exists and is not a directory: the store keeps its time series there"
            )

    @staticmethod
    def _create(con: sqlite3.Connection) -> None:
        con.execute("BEGIN IMMEDIATE")
        con.execute(f"PRAGMA application_id={APPLICATION_ID}")
        con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        con.execute(
            """CREATE TABLE IF NOT EXISTS runs (
                key TEXT PRIMARY KEY,
                engine_version TEXT NOT NULL,
                point TEXT NOT NULL,
                run_index INTEGER NOT NULL,
                scenario TEXT NOT NULL,
                metrics TEXT NOT NULL,
                finished_at REAL NOT NULL
            )"""
        )
        con.execute(
            """CREATE TABLE IF NOT EXISTS failures (
                key TEXT PRIMARY KEY,
                engine_version TEXT NOT NULL,
                point TEXT NOT NULL,
                run_index INTEGER NOT NULL,
                scenario TEXT NOT NULL,
                message TEXT NOT NULL,
                command TEXT NOT NULL,
                failed_at REAL NOT NULL
            )"""
        )
        con.execute("COMMIT")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def timeseries_dir(self) -> Path:
        """Parquet files of the runs' time series live beside the database."""
        return self.path.with_name(self.path.name + ".timeseries")

    def put_timeseries(self, key: str, parquet: bytes) -> Path:
        """Writes a run's time series atomically (write, fsync, rename)."""
        d = self.timeseries_dir
        final = d / f"{key}.parquet"
        # Unique per process and write: two writers never share a temporary file.
        tmp = d / f".{key}.{os.getpid()}.{next(_tmp_names)}.tmp"
        try:
            d.mkdir(exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(parquet)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except OSError as e:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise self._write_error(e) from e
        return final

    def _write_error(self, e: BaseException) -> StoreError:
        if _full(e):
            return StoreError(
                f"{self.path}: the disk or the database is full ({e}); every run finished "
                "before this one is stored: free space and run the same command to resume"
            )
        return StoreError(f"{self.path}: cannot write ({e})")

    def timeseries(self, key_prefix: str) -> pd.DataFrame:
        """The time series of the run whose key starts with ``key_prefix``."""
        import pandas as pd

        files = sorted(self.timeseries_dir.glob(f"{key_prefix}*.parquet"))
        if len(files) != 1:
            raise StoreError(f"{len(files)} time-series files match {key_prefix!r}")
        return pd.read_parquet(files[0])

    def finished_keys(self) -> set[str]:
        return {r[0] for r in self.con.execute("SELECT key FROM runs")}

    def put_run(
        self,
        key: str,
        engine_version: str,
        point: dict,
        run_index: int,
        scenario: str,
        metrics: dict,
    ) -> None:
        """Commits one finished run durably (a retried failure is cleared)."""
        try:
            self._put_run(key, engine_version, point, run_index, scenario, metrics)
        except (sqlite3.OperationalError, OSError) as e:
            raise self._write_error(e) from e

    def _put_run(self, key, engine_version, point, run_index, scenario, metrics) -> None:
        with self.con:
            self.con.execute("BEGIN IMMEDIATE")
            self.con.execute(
                "INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    engine_version,
                    json.dumps(point, sort_keys=True),
                    run_index,
                    scenario,
                    json.dumps(metrics),  # in the order computed: a sweep's columns
                    time.time(),
                ),
            )
            self.con.execute("DELETE FROM failures WHERE key = ?", (key,))

    def put_failure(
        self,
        key: str,
        engine_version: str,
        point: dict,
        run_index: int,
        scenario: str,
        message: str,
    ) -> str:
        db = shlex.quote(str(self.path.resolve()))
        command = (
            f"aqmlab results {db} --scenario {key[:16]} > repro.toml && "
            "aqmlab run repro.toml --out repro"
        )
        try:
            with self.con:
                self.con.execute("BEGIN IMMEDIATE")
                self.con.execute(
                    "INSERT OR REPLACE INTO failures VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        key,
                        engine_version,
                        json.dumps(point, sort_keys=True),
                        run_index,
                        scenario,
                        message,
                        command,
                        time.time(),
                    ),
                )
        except (sqlite3.OperationalError, OSError) as e:
            raise self._write_error(e) from e
        return command

    def scenario(self, key_prefix: str) -> str:
        """The scenario TOML of a run or failure whose key starts with ``key_prefix``."""
        rows = self.con.execute(
            "SELECT key, scenario FROM runs WHERE key LIKE ?1 || '%' "
            "UNION SELECT key, scenario FROM failures WHERE key LIKE ?1 || '%'",
            (key_prefix,),
        ).fetchall()
        if len({k for k, _ in rows}) != 1:
            raise StoreError(f"{len(rows)} runs match key prefix {key_prefix!r}; give more")
        return rows[0][1]

    def runs(self, engine_version: str | None = None) -> pd.DataFrame:
        """One row per finished run: parameters, run index, engine version, metrics."""
        import pandas as pd

        q = "SELECT key, engine_version, point, run_index, metrics FROM runs"
        args: tuple = ()
        if engine_version is not None:
            q += " WHERE engine_version = ?"
            args = (engine_version,)
        rows = []
        for key, ev, point, run_index, metrics in self.con.execute(q + " ORDER BY rowid", args):
            rows.append(
                {
                    "key": key,
                    "engine_version": ev,
                    "run": run_index,
                    **json.loads(point),
                    **json.loads(metrics),
                }
            )
        return pd.DataFrame(rows)

    def overview(self) -> pd.DataFrame:
        """Per engine version: finished runs, distinct points and failures."""
        import pandas as pd

        q = """SELECT engine_version, sum(runs) AS runs, sum(points) AS points,
                      sum(failures) AS failures FROM (
                 SELECT engine_version, count(*) AS runs, count(DISTINCT point) AS points,
                        0 AS failures FROM runs GROUP BY engine_version
                 UNION ALL
                 SELECT engine_version, 0, 0, count(*) FROM failures GROUP BY engine_version)
               GROUP BY engine_version ORDER BY engine_version"""
        return pd.read_sql_query(q, self.con)

    def failures(self) -> pd.DataFrame:
        import pandas as pd

        return pd.read_sql_query(
            "SELECT key, engine_version, point, run_index, message, command FROM failures",
            self.con,
        )
