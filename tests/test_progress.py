"""The reproduction-wide progress bar: one bar per reproduction, fed by every sweep through
the ProgressSink protocol (start(total, reused), advance(n), stop()), named by phase."""

import importlib
import io

from rich.console import Console

import aqmlab
from aqmlab.reproduce import Context, ReproductionProgress, reproduce

# The module: the package's name ``aqmlab.sweep`` is the function it re-exports.
sweep_module = importlib.import_module("aqmlab.sweep")


def _sink(name="rem"):
    out = io.StringIO()
    return ReproductionProgress(name, console=Console(file=out, width=120)), out


def _fake_sweep(sink, phase, total, reused):
    """What a sweep does with its sink: announce, advance once per computed run, stop."""
    sink.phase = phase
    sink.start(total, reused)
    for _ in range(total):
        sink.advance()
    sink.stop()


def test_one_bar_grows_across_the_sweeps_of_a_reproduction_and_names_the_phase():
    sink, _ = _sink()
    _fake_sweep(sink, "Fig. 2 (wired)", 7, 0)
    assert sink.completed == (7, 7)
    sink.phase = "Figs. 3-4 (wireless)"
    sink.start(4, 0)
    sink.advance(3)
    assert sink.completed == (10, 11)
    assert len(sink._progress.tasks) == 1  # one bar, not one per sweep
    assert sink._progress.tasks[0].description == "rem: Figs. 3-4 (wireless)"
    sink.advance()
    sink.stop()
    sink.close()
    assert sink.completed == (11, 11)


def test_runs_reused_from_the_store_are_announced_once_per_sweep_and_not_counted():
    sink, out = _sink("psand")
    _fake_sweep(sink, "Fig. 3: 20 flows at 50 s", 0, 4)
    _fake_sweep(sink, "Figs. 5-6: 20 flows", 2, 18)
    _fake_sweep(sink, "Figs. 5-6: 70 flows", 20, 0)
    sink.close()
    text = out.getvalue()
    assert text.count("psand: Fig. 3: 20 flows at 50 s: reusing 4 runs from the store") == 1
    assert text.count("psand: Figs. 5-6: 20 flows: reusing 18 runs from the store") == 1
    assert text.count("reusing") == 2  # nothing for the sweep that reused none
    assert sink.completed == (22, 22)


def test_context_sweep_hands_the_reproduction_bar_to_sweep_with_the_phase(tmp_path, monkeypatch):
    seen = []

    def fake(base, grid=None, *, db, workers, progress, **kw):
        seen.append((progress, getattr(progress, "description", None)))
        return "result"

    monkeypatch.setattr(sweep_module, "sweep", fake)
    sink, _ = _sink()
    ctx = Context(out=tmp_path, quick=True, workers=1, progress=True, sink=sink)
    assert ctx.sweep({}, phase="Fig. 2 (wired)") == "result"
    assert seen == [(sink, "rem: Fig. 2 (wired)")]
    quiet = Context(out=tmp_path, quick=True, workers=1, progress=False, sink=sink)
    quiet.sweep({}, phase="Fig. 2 (wired)")
    assert seen[-1] == (False, None)


def test_every_sweep_of_a_reproduction_reports_under_its_phase(tmp_path, capsys):
    """The mm1k and dumbbell reproductions with the real sweep: a second invocation reuses
    every run and says so per phase, on the reproduction's one bar."""
    for name in ["mm1k", "tcp_dumbbell"]:
        reproduce(name, quick=True, out=tmp_path, workers=1, progress=True)
    assert "reusing" not in capsys.readouterr().err
    for name in ["mm1k", "tcp_dumbbell"]:
        reproduce(name, quick=True, out=tmp_path, workers=1, progress=True)
    err = capsys.readouterr().err
    assert "mm1k: M/M/1/K, 4 (load, K) rows: reusing 16 runs from the store" in err
    for n in (2, 4, 8):
        assert f"tcp_dumbbell: N = {n} flows: reusing 3 runs from the store" in err
    assert err.count("━") > 0 and "runs" in err  # the bar itself, not a bar per sweep


def test_a_sweep_feeds_the_sink_it_is_given(tmp_path):
    calls = []

    class Sink:
        def start(self, total, reused):
            calls.append(("start", total, reused))

        def advance(self, n=1):
            calls.append(("advance", n))

        def stop(self):
            calls.append(("stop",))

    grid = {"links[3].queue.limit_pkts": [10, 20]}
    b = aqmlab.scenario.example(duration="1s", warmup="0s")
    aqmlab.sweep(b, grid, runs=2, workers=1, db=tmp_path / "x.db", progress=Sink())
    assert calls == [("start", 4, 0), *[("advance", 1)] * 4, ("stop",)]
    calls.clear()
    aqmlab.sweep(b, grid, runs=3, workers=1, db=tmp_path / "x.db", progress=Sink())
    assert calls == [("start", 2, 4), *[("advance", 1)] * 2, ("stop",)]


def test_the_built_in_bar_says_when_runs_are_reused(tmp_path, capsys):
    grid = {"links[3].queue.limit_pkts": [10, 20]}
    b = aqmlab.scenario.example(duration="1s", warmup="0s")
    aqmlab.sweep(b, grid, runs=1, workers=1, db=tmp_path / "x.db", progress=False)
    aqmlab.sweep(b, grid, runs=2, workers=1, db=tmp_path / "x.db", progress=True)
    assert f"reusing 2 of 4 runs from {tmp_path / 'x.db'}" in capsys.readouterr().err


def test_a_sweep_with_every_run_stored_shows_no_empty_bar(tmp_path, capsys):
    grid = {"links[3].queue.limit_pkts": [10, 20]}
    b = aqmlab.scenario.example(duration="1s", warmup="0s")
    aqmlab.sweep(b, grid, runs=1, workers=1, db=tmp_path / "x.db", progress=False)
    capsys.readouterr()
    aqmlab.sweep(b, grid, runs=1, workers=1, db=tmp_path / "x.db", progress=True)
    err = capsys.readouterr().err
    assert f"reusing 2 of 2 runs from {tmp_path / 'x.db'}" in err
    assert "0/0" not in err and "ETA" not in err
