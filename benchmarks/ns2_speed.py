"""aqmlab beside ns-2.35, whole process against whole process, in one invocation.

    .venv/bin/python benchmarks/ns2_speed.py [--flows 20 160] [--qdiscs droptail red]
        [--rounds 5] [--sim 50] [--reproductions]

For each case, the REM paper's dumbbell (scenarios/rem_dumbbell.toml with N flows, DropTail
or RED 20:80) is written once as a scenario file and once as the ns-2.35 script
`aqmlab.ns2` translates it into (the same start times, the ns2.35 profile's TCP, so the
two runs are the same experiment: docs/profiles.md, "Measured against ns-2.35"). Then
`--rounds` rounds run, each an `ns run.tcl` process and an aqmlab process
(`python -c "import aqmlab; aqmlab.run(FILE)"`: interpreter start, imports, parse,
validate, build, run, tables), one after the other, so that the machine's drift reaches
both alike. Printed per case: the median and [min-max] wall seconds of each, the ratio
of the medians (ns-2.35 / aqmlab), and the same for the aqmlab.run() call alone, timed
inside that process (without the interpreter's start and `import aqmlab`, 0.5-0.8 s here,
where `ns` starts in 0.04 s). Both simulators are single-threaded.

--reproductions: instead, each reproduction's largest configuration that ns-2.35 runs
(replication 0, with its start draws, at full size): REM's Fig. 2 RED(20:80) with
dropping (160 users at the end, 401 s), PSAND's Figs. 5-6 ARED_Floyd at 100 flows (100 s),
URIO's experiment (e) with RIO-C at the core (50 TCP flows behind five TSWTCM edges,
100 s). BIO (its RIO is ns-2's Queue/RED/RIO, which no ns-2 marker drives) and CIOQ (the
switch) have none.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aqmlab
from aqmlab import ns2
from aqmlab import scenario as sc
from aqmlab.sweep import set_field

ROOT = Path(__file__).resolve().parent.parent
RED = {
    "type": "red",
    "min_th": 20.0,
    "max_th": 80.0,
    "max_p": 0.1,
    "w_q": 0.002,
    "gentle": False,
    "byte_mode": False,
    "mean_pktsize": 1000,
}


def case(n: int, qdisc: str, sim: float, d: Path) -> tuple[Path, Path]:
    s = sc.load(ROOT / "scenarios" / "rem_dumbbell.toml")
    set_field(s, "repeat[0].count", n)
    set_field(s, "simulation.duration", f"{sim:g}s")
    if qdisc == "red":
        set_field(s, "links[bottleneck].queue.aqm", RED)
    c = aqmlab.canonical(s)
    toml = d / f"rem_{n}_{qdisc}.toml"
    toml.write_text(sc.to_toml(c), "utf-8")
    tcl = d / f"rem_{n}_{qdisc}.tcl"
    sim_ = c["simulation"]
    tcl.write_text(ns2.translate(c, rng_seed=ns2.rng_seed(sim_["seed"], sim_["run"])).tcl)
    return toml, tcl


def reproduction_cases(d: Path) -> list[tuple[str, Path, Path]]:
    """(label, scenario file, ns-2 script) of each reproduction's largest configuration
    that ns-2.35 runs, replication 0 as its sweep draws it."""
    from aqmlab.experiments import rem, urio
    from aqmlab.experiments.psand import setup as psand_setup
    from aqmlab.sweep import _replication

    stages, period = 8, 50.0
    rem_base = rem._base("64Mbps", 120, 1000, stages, period)
    rem_var = {"RED(20:80) drop": rem._variant(rem._red(20, 80, False, 1000), 160, False)}
    ps_var = {"ARED_Floyd": psand_setup.variants()["ARED_Floyd"]}
    ps_base = psand_setup.base(100, 3.5, "100s", "20s", "100s")
    ur_var = {"e RIO": urio._variant("e", False, "RIO")}
    ur_base = urio.network("a", False)
    out = []
    for label, base, variants, per_run in [
        ("rem: Fig. 2, RED(20:80) drop, 20-160 users, 401 s", rem_base, rem_var, rem._draw_starts),
        ("psand: Figs. 5-6, ARED_Floyd, 100 flows, 100 s", ps_base, ps_var, None),
        ("urio: (e), RIO-C core, 50 flows, 100 s", ur_base, ur_var, urio.draw_starts),
    ]:
        (name,) = variants
        s = _replication(base, {"variant": name}, 0, variants, per_run)
        c = aqmlab.canonical(s)
        toml, tcl = d / f"{label.split(':')[0]}.toml", d / f"{label.split(':')[0]}.tcl"
        toml.write_text(sc.to_toml(c), "utf-8")
        sim_ = c["simulation"]
        tcl.write_text(ns2.translate(c, rng_seed=ns2.rng_seed(sim_["seed"], sim_["run"])).tcl)
        out.append((label, toml, tcl))
    return out


def timed(cmd: list[str], cwd: Path) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - t0, p.stdout


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--flows", type=int, nargs="+", default=[20, 160])
    p.add_argument("--qdiscs", nargs="+", default=["droptail", "red"])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--sim", type=float, default=50.0, help="simulated seconds")
    p.add_argument("--reproductions", action="store_true", help="the reproductions' cases")
    a = p.parse_args()
    exe = ns2.command()
    if exe is None:
        print(ns2.INSTALL_HINT, file=sys.stderr)
        return 4
    print(
        "| case | ns-2.35 s | aqmlab s (process) | ns-2.35 / aqmlab | aqmlab.run() s "
        "| ns-2.35 / aqmlab.run() |"
    )
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if a.reproductions:
            cases = reproduction_cases(d)
        else:
            cases = [
                (f"{n} flows, {q}, {a.sim:g} s", *case(n, q, a.sim, d))
                for n in a.flows
                for q in a.qdiscs
            ]
        for label, toml, tcl in cases:
            row(label, toml, tcl, exe, a.rounds, d)
    return 0


def row(label: str, toml: Path, tcl: Path, exe: str, rounds: int, d: Path) -> None:
    code = (
        "import aqmlab, sys, time; t = time.perf_counter(); aqmlab.run(sys.argv[1]); "
        "print(time.perf_counter() - t)"
    )
    ns_t, aq_t, in_t = [], [], []
    for _ in range(rounds):
        ns_t.append(timed([exe, tcl.name], d)[0])
        wall, out = timed([sys.executable, "-c", code, str(toml)], d)
        aq_t.append(wall)
        in_t.append(float(out))

    def f(xs: list[float]) -> str:
        return f"{statistics.median(xs):.2f} [{min(xs):.2f}-{max(xs):.2f}]"

    med = statistics.median
    print(
        f"| {label} | {f(ns_t)} | {f(aq_t)} "
        f"| {med(ns_t) / med(aq_t):.1f}x | {f(in_t)} | {med(ns_t) / med(in_t):.1f}x |"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
