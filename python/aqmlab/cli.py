"""The ``aqmlab`` command line."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from aqmlab import _core
from aqmlab.pool import ClusterUnreachable, SweepInterrupted
from aqmlab.scenario import as_toml
from aqmlab.store import StoreError

EPILOG = """examples:
  aqmlab example --out my.toml           write the built-in example scenario
  aqmlab validate my.toml                check a scenario without running it
  aqmlab run my.toml --out results/my    run it; writes summary.json, CSV, Parquet, PNG
  aqmlab sweep sw.toml --db sw.db        a sweep; kill it any time, rerun to resume
  aqmlab results sw.db --export parquet  every finished run as a table
  aqmlab crosscheck my.toml --runs 5     the same scenario in ns-2.35 beside aqmlab
  aqmlab crosscheck my.toml --ns3        ... in ns-3.44 (CoDel, PIE, FQ-CoDel)
  aqmlab rrul --out results/rrul         Flent's RRUL latency-under-load test, per AQM

Scenario reference: docs/scenarios.md. Exit status: 0 ok, 1 some sweep runs failed,
2 invalid input (or not runnable in ns-2.35), 3 engine error or out of memory,
4 ns-2.35 not installed, 5 no Dask scheduler at --cluster, 130 Ctrl-C, 143 SIGTERM
(rerun to resume).
"""


def _fmt_rate(bps: float) -> str:
    for unit, f in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= f:
            return f"{bps / f:.3f} {unit}"
    return f"{bps:.0f} b/s"


def _print_summary(res) -> None:
    print(f"{res.events} events, {res.packets} packets, {res.measured_s:g} s measured")
    print("queues with traffic:")
    q = res.queues[res.queues["arrivals"] > 0]
    for r in q.to_dict("records"):
        drops = sum(r[f"dropped_{x}"] for x in res.reasons)
        print(
            f"  {r['name']:<16} util {r['utilization']:6.1%}  mean queue "
            f"{r['mean_queue_pkts']:7.2f} pkts  drops {drops:>7} / {r['arrivals']} arrivals  "
            f"sojourn {r['mean_sojourn_s'] * 1e3:8.3f} ms"
        )
    print("flows:")
    for r in res.flows.to_dict("records"):
        print(
            f"  {r['name']:<16} goodput {_fmt_rate(r['goodput_bps']):>14}  "
            f"loss {r['loss_rate']:7.3%}  delay {r['mean_delay_s'] * 1e3:8.3f} ms"
        )


def cmd_run(args: argparse.Namespace) -> int:
    from aqmlab.runner import run
    from aqmlab.scenario import load

    sc = load(args.file)
    if args.seed is not None:
        sc.setdefault("simulation", {})["seed"] = args.seed
    if args.run is not None:
        sc.setdefault("simulation", {})["run"] = args.run
    for link in args.capture or ():
        sc.setdefault("captures", []).append({"link": link})
    # validates before anything is written; a progress bar on a terminal
    res = run(sc, progress=sys.stderr.isatty() and not args.no_progress)
    written = res.write(args.out, plot=not args.no_plot)
    _print_summary(res)
    what = "summary.json, scenario.toml, tables" + ("" if args.no_plot else ", queue_length.png")
    if res.captures:
        what += f", {len(res.captures)} pcap files in captures/"
    print(f"wrote {len(written)} files to {args.out}/ ({what})")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from aqmlab.runner import canonical

    c = canonical(args.file)
    # With --canonical, stdout is the canonical TOML alone (`> c.toml` must be valid TOML):
    # the status line goes to stderr then.
    print(
        f"{args.file}: valid ({len(c.get('nodes', []))} nodes, {len(c.get('links', []))} "
        f"links, {len(c.get('flows', []))} flows)",
        file=sys.stderr if args.canonical else sys.stdout,
    )
    if args.canonical:
        print(_core.canonical(as_toml(args.file)), end="")
    return 0


DEFAULT_SWEEPS = Path("results") / "sweeps"


def cmd_sweep(args: argparse.Namespace) -> int:
    from aqmlab.scenario import read_toml
    from aqmlab.sweep import sweep_file

    read_toml(args.file, "sweep")  # a file that cannot be read creates nothing
    stem = Path(args.file).stem
    # Nothing computed is thrown away: without --db/--out the results go to a default
    # place, said before the first run.
    db = Path(args.db) if args.db else DEFAULT_SWEEPS / f"{stem}.db"
    out = Path(args.out) if args.out else DEFAULT_SWEEPS / stem
    if not args.db:
        db.parent.mkdir(parents=True, exist_ok=True)
        print(f"results store: {db} (--db to choose another)", file=sys.stderr)
    res = sweep_file(
        args.file,
        workers=args.workers,
        cluster=args.cluster,
        db=db,
        progress=not args.no_progress,
    )
    print(
        f"{res.computed} runs computed, {res.skipped} found in the store, "
        f"{len(res.failures)} failed"
    )
    for f in res.failures.to_dict("records"):
        print(
            f"  failed {f['point']} run {f['run']}: {f['message']}\n    reproduce: {f['command']}"
        )
    out.mkdir(parents=True, exist_ok=True)
    res.runs.to_csv(out / "runs.csv", index=False)
    written = ["runs.csv"]
    if res.summary is not None:
        res.summary.to_csv(out / "summary.csv", index=False)
        res.tidy.to_csv(out / "summary_long.csv", index=False)
        written += ["summary.csv (wide)", "summary_long.csv (tidy)"]
    else:
        print(f"no summary ({res.summary_error}); the runs are in {db}", file=sys.stderr)
    print(f"wrote {', '.join(written)} to {out}/")
    return 0 if res.failures.empty and res.summary is not None else 1


def _table(rows: list[list[str]], header: list[str]) -> str:
    """A plain text table: numbers right-aligned."""
    cells = [header, *rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if c.replace(".", "").isdigit() else c.ljust(w)
            for c, w in zip(r, widths, strict=True)
        ).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def cmd_results(args: argparse.Namespace) -> int:
    from aqmlab.store import Store

    db = Path(args.db)
    if not db.is_file():
        raise FileNotFoundError(f"results store not found: {args.db}")
    with Store(db, write=False) as st:
        if args.scenario:
            print(st.scenario(args.scenario), end="")
            return 0
        runs = st.runs()
        fails = st.failures()
        if args.export:
            # Beside the database (or in --out), never in whatever the current directory is.
            out = Path(args.out) if args.out else db.with_suffix(f".{args.export}")
            out.parent.mkdir(parents=True, exist_ok=True)
            if args.export == "csv":
                runs.to_csv(out, index=False)
            else:
                runs.to_parquet(out, index=False)
            print(f"wrote {len(runs)} runs to {out}")
            return 0
        print(f"{db}: {len(runs)} finished runs, {len(fails)} failures")
        rows = [
            [
                v + (" (this aqmlab)" if v == _core.ENGINE_VERSION else ""),
                str(r),
                str(p),
                str(f),
            ]
            for v, r, p, f in st.overview().itertuples(index=False)
        ]
        if rows:
            print(_table(rows, ["engine version", "runs", "points", "failures"]))
        for f in fails.to_dict("records"):
            print(f"failed {f['point']} run {f['run_index']}: {f['message']}")
            print(f"  reproduce: {f['command']}")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from aqmlab.reproduce import registry, reproduce

    reg = registry()
    if args.list:
        for name, exp in reg.items():
            print(f"{name:<16} {exp.title}")
        return 0
    if args.paper is not None and args.paper not in reg:
        near = difflib.get_close_matches(args.paper, reg, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        print(
            f"error: unknown reproduction {args.paper!r}{hint} (registered: {', '.join(reg)})",
            file=sys.stderr,
        )
        return 2
    if args.ns2:
        from aqmlab import ns2

        if not ns2.available():
            print(f"error: {ns2.INSTALL_HINT}", file=sys.stderr)
            return 4
    done = reproduce(
        args.paper,
        quick=args.quick,
        out=args.out,
        workers=args.workers,
        progress=not args.no_progress,
        ns2=args.ns2,
    )
    for name, outcome in done.items():
        print(outcome.line(name))
    return 0


def cmd_rrul(args: argparse.Namespace) -> int:
    import time

    from aqmlab.experiments import bufferbloat as bb

    try:
        keys = [bb.aqm_key(a) for a in args.aqm] if args.aqm else list(bb.AQMS)
        quick = args.quick
        c = bb.Config(
            duration_s=args.duration if args.duration is not None else (10.0 if quick else 30.0),
            delay_s=2.0 if quick else 5.0,
            rtt_ms=args.rtt_ms,
        )
        bb.validate_config(c)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    _, table, out = bb.rrul(keys, config=c, out=args.out, workers=args.workers)
    print(
        f"RRUL, 20/5 Mb/s, base RTT {c.rtt_ms:g} ms, {c.duration_s:g} s loaded "
        f"({c.total_s:g} s simulated per AQM); loaded-window figures:"
    )
    print(bb.table_text(table))
    print(f"report {out / 'report.html'} ({time.perf_counter() - t0:.1f} s)")
    return 0


def _set_value(text: str) -> object:
    """A --set value: TOML (a number, a boolean, a quoted string, an inline table), or
    the text itself as a string."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def cmd_crosscheck(args: argparse.Namespace) -> int:
    from aqmlab import ns2, ns3
    from aqmlab.crosscheck import crosscheck
    from aqmlab.scenario import load
    from aqmlab.sweep import set_field

    s = load(args.file)
    for item in args.set or []:
        path, eq, value = item.partition("=")
        if not eq:
            print(f"error: --set {item!r}: expected PATH=VALUE", file=sys.stderr)
            return 2
        set_field(s, path.strip(), _set_value(value.strip()))
    try:
        cc = crosscheck(
            s,
            runs=args.runs,
            all_queues=args.all_queues,
            workers=args.workers,
            reference="ns3" if args.ns3 else "ns2",
            cache=args.cache,
        )
    except ns2.Unsupported as e:  # ns3.Unsupported too
        print(f"error: {args.file}: {e}", file=sys.stderr)
        return 2
    except (ns2.NotInstalled, ns3.NotInstalled) as e:
        print(f"error: {e}", file=sys.stderr)
        return 4
    text = f"## {args.file}: aqmlab against {cc.reference}\n\n" + cc.markdown()
    print(text, end="")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "crosscheck.md").write_text(text, "utf-8")
        cc.table.to_csv(out / "crosscheck.csv", index=False)
    return 1 if args.strict and len(cc.flagged) else 0


def cmd_example(args: argparse.Namespace) -> int:
    # The commented file (scenarios/example.toml, shipped in the package); a test keeps
    # both copies identical and equal to `example()`.
    text = (Path(__file__).parent / "example.toml").read_text("utf-8")
    if args.out:
        Path(args.out).write_text(text, "utf-8")
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="aqmlab",
        description="Packet-level simulator for Active Queue Management research.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"aqmlab {_core.ENGINE_VERSION}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser("run", help="run a scenario file and write its results")
    r.add_argument("file", help="scenario TOML file")
    r.add_argument("--out", required=True, help="output directory (created if missing)")
    r.add_argument("--seed", type=int, help="override simulation.seed")
    r.add_argument("--run", type=int, help="override simulation.run (replication index)")
    r.add_argument("--no-plot", action="store_true", help="skip queue_length.png")
    r.add_argument(
        "--capture",
        action="append",
        metavar="LINK",
        help='capture a link ("from->to", or a link name for both directions) into '
        "OUT/captures/*.pcap; repeatable (docs/capture.md)",
    )
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("file", help="scenario TOML file")
    v.add_argument("--canonical", action="store_true", help="print the canonical form")
    v.set_defaults(func=cmd_validate)

    s = sub.add_parser("sweep", help="run a sweep file (parameters x replications)")
    s.add_argument("file", help="sweep TOML file: [sweep] base, runs, [sweep.grid]")
    s.add_argument(
        "--db",
        help="results store (SQLite); finished runs are skipped "
        "(default: results/sweeps/<sweep file name>.db)",
    )
    s.add_argument("--workers", type=int, help="local processes (default: all cores)")
    s.add_argument("--cluster", help='Dask scheduler address, or "local" for a LocalCluster')
    s.add_argument(
        "--out",
        help="write runs.csv, summary.csv (wide) and summary_long.csv (tidy) here "
        "(default: results/sweeps/<sweep file name>/)",
    )
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_sweep)

    q = sub.add_parser("results", help="inspect or export a results store")
    q.add_argument("db", help="results store (SQLite)")
    q.add_argument("--export", choices=["csv", "parquet"], help="export every finished run")
    q.add_argument("--out", help="export directory (default: beside the database, named after it)")
    q.add_argument("--scenario", metavar="KEY", help="print the scenario of a run (key prefix)")
    q.set_defaults(func=cmd_results)

    rp = sub.add_parser("reproduce", help="reproduce a paper or validation study, with a report")
    rp.add_argument("paper", nargs="?", help="registered name (none: all of them, quick)")
    rp.add_argument("--quick", action="store_true", help="smaller runs, for a first look")
    rp.add_argument("--out", default="results/reproduce", help="report directory")
    rp.add_argument("--workers", type=int, help="local processes (default: all cores)")
    rp.add_argument("--list", action="store_true", help="list the registered reproductions")
    rp.add_argument("--no-progress", action="store_true", help="no progress bar")
    rp.add_argument(
        "--ns2",
        action="store_true",
        help="also run every configuration in ns-2.35 where it can (a section per "
        "configuration in the report)",
    )
    rp.set_defaults(func=cmd_reproduce)

    c = sub.add_parser(
        "crosscheck",
        help="run a scenario in aqmlab and in ns-2.35 (or ns-3.44), replicated, and compare",
    )
    c.add_argument("file", help="scenario TOML file")
    c.add_argument("--runs", type=int, default=5, help="replications in each simulator")
    c.add_argument(
        "--set",
        action="append",
        metavar="PATH=VALUE",
        help="set a field first, by its sweep path (repeat[0].count=160); VALUE is TOML",
    )
    c.add_argument(
        "--ns3",
        action="store_true",
        help="against ns-3.44 (the PyPI package ns3 in its own environment: `make ns3`)",
    )
    c.add_argument(
        "--cache", metavar="DIR", help="keep the reference's outputs here and reuse them"
    )
    c.add_argument("--all-queues", action="store_true", help="list idle queues too")
    c.add_argument("--workers", type=int, help="simulations at once (default: all cores)")
    c.add_argument("--out", help="also write crosscheck.md and crosscheck.csv here")
    c.add_argument(
        "--strict", action="store_true", help="exit 1 when some metric differs (flagged)"
    )
    c.set_defaults(func=cmd_crosscheck)

    rr = sub.add_parser(
        "rrul", help="Flent's RRUL test (latency under load) on a home gateway, per AQM"
    )
    rr.add_argument(
        "--aqm",
        action="append",
        metavar="NAME",
        help="an AQM to test (repeat; default: droptail, codel, fq_codel, pie, red, dualpi2)",
    )
    rr.add_argument("--rtt-ms", type=float, default=40.0, help="base RTT, 20 to 80 ms")
    rr.add_argument("--duration", type=float, help="seconds of load (default 30; 10 with --quick)")
    rr.add_argument("--out", default="results/rrul", help="report directory")
    rr.add_argument("--quick", action="store_true", help="10 s of load, 2 s idle each side")
    rr.add_argument("--workers", type=int, default=2, help="runs at once (threads)")
    rr.set_defaults(func=cmd_rrul)

    e = sub.add_parser("example", help="print (or write) the built-in example scenario")
    e.add_argument("--out", help="write to this file instead of standard output")
    e.set_defaults(func=cmd_example)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SweepInterrupted as e:  # Ctrl-C or SIGTERM: finished runs are in the store
        print(str(e), file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:  # outside a sweep's runs (loading, waiting for a lock)
        print("interrupted", file=sys.stderr)
        return 130
    except _core.ScenarioError as e:
        print(f"error: invalid scenario {getattr(args, 'file', '')}:\n{e}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # TOML syntax errors from tomllib
        print(f"error: {e}", file=sys.stderr)
        return 2
    except StoreError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ClusterUnreachable as e:
        print(f"error: {e}", file=sys.stderr)
        return 5
    except MemoryError as e:  # ResourceError: a memory bound, or an allocation that failed
        print(f"error: out of memory: {e}", file=sys.stderr)
        return 3
    except (_core.ConservationError, _core.InternalError) as e:
        print(f"engine error ({type(e).__name__}): {e}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
