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

import hashlib
import json
import os
import shlex
import sqlite3
import time
from pathlib import Path
from typing import Any

import pandas as pd

APPLICATION_ID = 0x41514D4C  # "AQML"
SCHEMA_VERSION = 1


class StoreError(Exception):
    """The file cannot be used as a results store (it is left untouched)."""


def run_key(canonical: dict[str, Any], engine_version: str) -> str:
    """The identity of one run: canonical scenario (with its run index) + engine version."""
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{engine_version}\n{text}".encode()).hexdigest()


class Store:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"{self.path} is not a file")
        fresh = not self.path.exists() or self.path.stat().st_size == 0
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
        if fresh or (app == 0 and not tables):
            self._create(con)
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
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=FULL")
        self.con = con

    @staticmethod
    def _create(con: sqlite3.Connection) -> None:
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
        d.mkdir(exist_ok=True)
        final = d / f"{key}.parquet"
        tmp = d / f".{key}.parquet.tmp"
        with open(tmp, "wb") as f:
            f.write(parquet)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, final)
        return final

    def timeseries(self, key_prefix: str) -> pd.DataFrame:
        """The time series of the run whose key starts with ``key_prefix``."""
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

    def failures(self) -> pd.DataFrame:
        return pd.read_sql_query(
            "SELECT key, engine_version, point, run_index, message, command FROM failures",
            self.con,
        )
