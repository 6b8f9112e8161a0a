"""Signals and lost workers during a real `aqmlab sweep` process (issue 9, items 1 and 6).

Each trial starts a sweep in its own process group (as a shell job), sends the signal at a
random moment of its life (seeded), and checks: exit within 2 s of the signal with the
shell's code (130 for SIGINT, 143 for SIGTERM), the one-line message, no process of the
group left behind, and that running the same command again completes with results
identical to a sweep that was never interrupted. A killed worker must be replaced and its
run retried: the sweep exits 0 with no failure. The 20-trial versions are `slow`; the
default run does one trial of each.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_sweep import BUFFER, cli, count_runs, stored_runs

from aqmlab.scenario import example, to_toml

RUNS, LIMITS = 6, [10, 30, 100]
TOTAL = RUNS * len(LIMITS)
# Runs of ~0.3 s, so that the sweep lasts a few seconds on two workers and signals land
# while runs are in flight.
DURATION = "120s"
EXIT_BOUND_S = 2.0


def write_sweep(tmp: Path) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "base.toml").write_text(to_toml(example(duration=DURATION, warmup="0s")), "utf-8")
    sw = tmp / "sweep.toml"
    sw.write_text(
        f'[sweep]\nbase = "base.toml"\nruns = {RUNS}\n\n[sweep.grid]\n"{BUFFER}" = {LIMITS}\n',
        "utf-8",
    )
    return sw


def command(sw: Path, db: Path) -> list[str]:
    return cli("sweep", str(sw), "--db", str(db), "--workers", "2", "--no-progress")


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, dict]:
    """key -> metrics of a sweep that was never interrupted."""
    tmp = tmp_path_factory.mktemp("reference")
    db = tmp / "ref.db"
    done = subprocess.run(
        command(write_sweep(tmp), db), cwd=tmp, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return {k: m for k, (m, _) in stored_runs(db).items()}


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes whose process group is ``pgid``."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state != "Z":
            out.append(int(d.name))
    return out


def children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _as_a_terminal_job() -> None:
    # A terminal's job gets SIGINT at its default; the test runner may have it ignored (a
    # background job of a script), which the sweep would rightly keep.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(sw: Path, db: Path) -> subprocess.Popen:
    return subprocess.Popen(
        command(sw, db),
        cwd=sw.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job
        preexec_fn=_as_a_terminal_job,
    )


def wait_until_running(proc: subprocess.Popen, db: Path, at_least: int) -> None:
    deadline = time.monotonic() + 120
    while count_runs(db) < at_least or len(children(proc.pid)) < 2:
        assert proc.poll() is None, f"the sweep ended early: {proc.communicate()}"
        assert time.monotonic() < deadline, "the sweep did not start in 120 s"
        time.sleep(0.005)


def interrupt_trial(tmp: Path, sig: signal.Signals, rng: random.Random, group: bool, ref):
    sw = write_sweep(tmp)
    db = tmp / "x.db"
    proc = start(sw, db)
    try:
        # A random moment: after 0..TOTAL-4 stored runs, plus a random fraction of a run.
        wait_until_running(proc, db, rng.randrange(0, TOTAL - 4))
        time.sleep(rng.uniform(0, 0.3))
        if proc.poll() is not None:
            pytest.fail(f"the sweep finished before the signal: {proc.communicate()}")
        sent = time.monotonic()
        if group:
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{sig.name}: no exit within 30 s")
        took = time.monotonic() - sent
        _out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    time.sleep(0.05)  # let the kernel reap what PDEATHSIG killed
    left = group_members(proc.pid)
    code = {signal.SIGINT: 130, signal.SIGTERM: 143}[sig]
    assert proc.returncode == code, (proc.returncode, err)
    assert took <= EXIT_BOUND_S, f"{sig.name}: exit took {took:.2f} s"
    assert not left, f"processes left behind: {left}"
    stored = count_runs(db)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines == [
        f"interrupted: {stored} runs stored, {TOTAL - stored} pending; "
        "run the same command to resume"
    ], err
    resumed = subprocess.run(command(sw, db), cwd=tmp, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{TOTAL - stored} runs computed, {stored} found in the store, 0 failed" in (
        resumed.stdout
    )
    assert {k: m for k, (m, _) in stored_runs(db).items()} == ref
    return took


def killed_worker_trial(tmp: Path, rng: random.Random, ref):
    sw = write_sweep(tmp)
    db = tmp / "x.db"
    proc = start(sw, db)
    try:
        # At least 6 runs still pending and a short wait, so the kill lands while workers
        # run: on an idle machine a run takes ~0.15 s, and with 4 pending and up to 0.3 s of
        # wait the sweep had sometimes finished its last runs (no worker left to kill).
        wait_until_running(proc, db, rng.randrange(0, TOTAL - 6))
        time.sleep(rng.uniform(0, 0.1))
        workers = children(proc.pid)
        assert workers, "no worker to kill"
        os.kill(rng.choice(workers), signal.SIGKILL)  # as the OOM killer does
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 0, err
    assert f"{TOTAL} runs computed, 0 found in the store, 0 failed" in out, out
    assert {k: m for k, (m, _) in stored_runs(db).items()} == ref
    assert not group_members(proc.pid)


CASES = [("SIGINT", True), ("SIGTERM", True), ("SIGTERM", False)]


@pytest.mark.parametrize(("name", "group"), CASES)
def test_a_signal_stops_the_sweep_within_2s_and_a_resume_completes_it(
    tmp_path, reference, name, group
):
    interrupt_trial(tmp_path, signal.Signals[f"{name}"], random.Random(1), group, reference)


def test_a_killed_worker_is_replaced_and_its_run_retried(tmp_path, reference):
    killed_worker_trial(tmp_path, random.Random(2), reference)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_twenty_signals_at_random_moments(tmp_path, reference, name):
    rng = random.Random(f"twenty-{name}")
    took = [
        interrupt_trial(
            tmp_path / f"t{i}", signal.Signals[name], rng, i % 2 == 0 or name == "SIGINT", reference
        )
        for i in range(20)
    ]
    print(
        f"{name}: 20 trials, exit after the signal: max {max(took):.3f} s, "
        f"median {sorted(took)[10]:.3f} s"
    )


@pytest.mark.slow
def test_twenty_killed_workers(tmp_path, reference):
    rng = random.Random("twenty-killed")
    for i in range(20):
        killed_worker_trial(tmp_path / f"t{i}", rng, reference)


def test_a_second_ctrl_c_exits_at_once(tmp_path):
    """While the first interrupt is being handled, a second one ends the process at once;
    the workers die with it."""
    sw = write_sweep(tmp_path)
    db = tmp_path / "x.db"
    proc = start(sw, db)
    try:
        wait_until_running(proc, db, 1)
        os.killpg(proc.pid, signal.SIGINT)
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=EXIT_BOUND_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == 130
    time.sleep(0.05)
    assert not group_members(proc.pid)


def test_two_sweeps_on_one_store_compute_each_run_once(tmp_path, reference):
    sw = write_sweep(tmp_path)
    db = tmp_path / "x.db"
    procs = [start(sw, db) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    computed = []
    for out, _ in outs:
        line = next(ln for ln in out.splitlines() if "runs computed" in ln)
        computed.append(int(line.split()[0]))
    assert sorted(computed) == [0, TOTAL], outs  # the second waited, then reused every run
    waited = [err for _, err in outs if "waiting for another sweep on" in err]
    assert len(waited) == 1, outs
    assert {k: m for k, (m, _) in stored_runs(db).items()} == reference


def test_the_pool_reports_a_run_that_kills_its_worker_every_time(tmp_path, monkeypatch):
    """Retried twice, then recorded as that run's failure; the other runs are unaffected."""
    import aqmlab
    from aqmlab import sweep as _  # noqa: F401  (the module, for monkeypatch below)

    sweep_mod = sys.modules["aqmlab.sweep"]
    real = sweep_mod._run_one

    def crash_on_30(text: str, timeseries: bool = False, extra=None, summary: bool = True):
        if "limit_pkts = 30" in text:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(text, timeseries, extra, summary)

    monkeypatch.setattr(sweep_mod, "_run_one", crash_on_30)
    res = aqmlab.sweep(
        example(duration="1s", warmup="0s"),
        {BUFFER: [10, 30, 100]},
        runs=1,
        workers=2,
        progress=False,
    )
    assert res.runs[BUFFER].tolist() == [10, 100]
    [f] = res.failures.to_dict("records")
    assert f["message"] == (
        "RuntimeError: worker process died (signal 9) running this scenario, 3 times"
    )


def test_an_interrupted_python_sweep_raises_sweep_interrupted(tmp_path):
    """In Python the same interrupt is an exception (a KeyboardInterrupt) with the code.
    The signal is sent when the first run is stored, so it always lands inside the sweep
    (a timer could fire before the sweep starts on a loaded machine)."""
    import aqmlab

    sent: list[float] = []

    class InterruptAfterFirstRun:
        def start(self, total: int, reused: int) -> None:
            pass

        def advance(self, n: int = 1) -> None:
            if not sent:
                sent.append(time.monotonic())
                os.kill(os.getpid(), signal.SIGINT)

        def stop(self) -> None:
            pass

    # A Python process's own SIGINT handler, which it lacks when started with SIGINT ignored
    # (a background job of a non-interactive shell).
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(aqmlab.SweepInterrupted) as e:
            aqmlab.sweep(
                example(duration=DURATION, warmup="0s"),
                {BUFFER: LIMITS},
                runs=RUNS,
                workers=2,
                db=tmp_path / "x.db",
                progress=InterruptAfterFirstRun(),
            )
        assert sent, "no run finished before the sweep ended"
        assert time.monotonic() - sent[0] < EXIT_BOUND_S
        assert e.value.exit_code == 130
        assert str(e.value).startswith("interrupted: ")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    finally:
        signal.signal(signal.SIGINT, inherited)


def test_an_ignored_signal_stays_ignored_during_a_sweep():
    """A sweep started with SIGINT ignored (a background job of a script: ``aqmlab sweep ... &``
    in a non-interactive shell) keeps it ignored, as Unix programs do; SIGTERM, which it does
    not ignore, still stops it."""
    from aqmlab.pool import signals_raise

    inherited = signal.signal(signal.SIGINT, signal.SIG_IGN)
    term = signal.getsignal(signal.SIGTERM)
    try:
        with signals_raise():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (term, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) == term
    finally:
        signal.signal(signal.SIGINT, inherited)
