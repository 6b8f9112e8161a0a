"""Start-up time of the CLI: whole processes, timed from outside, min / median / max.

    .venv/bin/python benchmarks/startup.py [--runs 20]

`aqmlab --help`, `aqmlab validate` and `aqmlab run --no-plot` of scenarios/example.toml
(4 hosts, 2 routers, 3 flows, 10 s simulated), each started --runs times in turn after one
warm-up; `import aqmlab` alone for comparison. `run` includes the engine and writing its
tables (pandas, pyarrow); --help and validate load neither (tests/test_startup.py)."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "scenarios" / "example.toml")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    aqmlab = str(Path(sys.executable).with_name("aqmlab"))
    out = tempfile.mkdtemp()
    commands = {
        "import aqmlab": [sys.executable, "-c", "import aqmlab"],
        "aqmlab --help": [aqmlab, "--help"],
        "aqmlab validate": [aqmlab, "validate", EXAMPLE],
        "aqmlab run --no-plot": [aqmlab, "run", EXAMPLE, "--out", out, "--no-plot"],
    }
    times: dict[str, list[float]] = {k: [] for k in commands}
    for i in range(args.runs + 1):
        for name, cmd in commands.items():
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            if i:  # the first round warms the page cache
                times[name].append(time.perf_counter() - t0)
    print(f"{'command':<22} {'min':>8} {'median':>8} {'max':>8}  ({args.runs} runs, wall s)")
    for name, t in times.items():
        print(f"{name:<22} {min(t):8.3f} {statistics.median(t):8.3f} {max(t):8.3f}")


if __name__ == "__main__":
    main()
