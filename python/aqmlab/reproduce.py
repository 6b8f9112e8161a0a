"""Reproductions: a registry of experiments, each declaring its sweeps, figures and the
claims it checks, and a report writer.

An experiment module in ``aqmlab.experiments`` defines ``EXPERIMENT = Experiment(...)``
with its claims declared before its runs (``aqmlab.claims.Declarations``: the paper's words,
the rule in words and as code, why that strictness). Its ``run(ctx)`` computes everything
from simulations (through ``ctx.sweep``, which keeps a results store per experiment, so an
interrupted reproduction resumes) and returns the claims made from those declarations with
their measured values; ``holds`` is computed by the declared test, never written by hand,
and the frame refuses a claim that was not declared or a declaration left unjudged.
``aqmlab reproduce NAME`` writes ``report.md`` and ``report.html`` with the figures, the
table "paper says / we measured / holds?" and the tolerance table.
"""

from __future__ import annotations

import html
import importlib
import itertools
import pkgutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import _core
from aqmlab.claims import (
    Claim,
    Declarations,
    Declared,
    at_least,
    at_most,
    cell,
    fmt,
    increasing,
    judge,
    less_than,
    within,
)


class ReproductionProgress:
    """One progress bar for a whole reproduction (phase, runs done/total, ETA), fed by all
    of its sweeps through the ``ProgressSink`` protocol of ``aqmlab.sweep``:
    ``start(total, reused)`` once per sweep before its runs, ``advance(n)``, ``stop()``.

    The bar's total grows as each sweep starts (a reproduction's later sweeps are not known
    before its earlier ones finish), so the ETA covers the sweeps started so far. Runs found
    in the results store are not counted; each sweep that reuses some says so once."""

    def __init__(self, name: str, console: Any = None):
        self.name = name
        self.phase = ""
        self._console = console
        self._progress: Any = None
        self._task: Any = None
        self._total = 0

    @property
    def description(self) -> str:
        return f"{self.name}: {self.phase}" if self.phase else self.name

    def start(self, total: int, reused: int) -> None:
        if self._progress is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self._console or Console(stderr=True),
            )
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=0)
        self._total += total
        self._progress.update(self._task, total=self._total, description=self.description)
        if reused > 0:
            self._progress.console.print(
                f"{self.description}: reusing {reused} runs from the store"
            )

    def advance(self, n: int = 1) -> None:
        self._progress.advance(self._task, n)

    def stop(self) -> None:
        """The end of one sweep; the bar stays for the reproduction's next one."""
        if self._progress is not None:
            self._progress.refresh()

    def close(self) -> None:
        """The end of the reproduction: the bar's last state stays on the terminal."""
        if self._progress is not None and self._progress.live.is_started:
            self._progress.update(self._task, description=f"{self.name}: done")
            self._progress.stop()

    @property
    def completed(self) -> tuple[int, int]:
        """(runs done, runs to compute) so far."""
        if self._progress is None:
            return 0, 0
        task = self._progress.tasks[0]
        return int(task.completed), int(task.total or 0)


@dataclass
class Context:
    out: Path
    quick: bool
    workers: int | None
    progress: bool
    figures: list[tuple[str, Path]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # The reproduction-wide progress bar that every sweep of this experiment feeds.
    sink: ReproductionProgress | None = None
    # `reproduce --ns2`: every configuration of every sweep also runs in ns-2.35, where it
    # can, and the report gets a section per configuration (crosscheck's tables).
    ns2: bool = False
    ns2_sections: list[str] = field(default_factory=list)
    # The ns-2.35 pass (aqmlab.reproduce_ns2): its findings, and aqmlab's store, whose runs
    # give the rows' order and columns.
    ns2_pass: Any = None
    aqmlab_db: Path | None = None
    # ns-2.35's outputs by script, shared by both passes and kept for a resumed run.
    ns2_cache: Path | None = None
    ns2_figures: list[tuple[str, Path]] = field(default_factory=list)

    @property
    def db(self) -> Path:
        """This experiment's results store (one per size)."""
        return self.out / ("quick.db" if self.quick else "full.db")

    def sweep(self, base, grid=None, *, phase: str, **kw):
        """A sweep whose runs go to this experiment's results store (resumable); ``phase``
        names it on the reproduction's progress bar ("Fig. 2 (wired)")."""
        from aqmlab.sweep import sweep

        if self.ns2_pass is not None:
            from aqmlab import reproduce_ns2

            return reproduce_ns2.sweep(self, base, grid, phase, kw)
        progress: bool | ReproductionProgress = self.progress
        if self.progress and self.sink is not None:
            self.sink.phase = phase
            progress = self.sink
        res = sweep(base, grid, db=self.db, workers=self.workers, progress=progress, **kw)
        if self.ns2:
            self._beside_ns2(base, grid, phase, kw)
        return res

    def _beside_ns2(self, base, grid, phase: str, kw: dict) -> None:
        """Each configuration of a sweep in ns-2.35 beside aqmlab (aqmlab.crosscheck, with
        the sweep's replications and start draws), or why ns-2.35 cannot run it."""
        import copy

        from aqmlab import ns2
        from aqmlab.crosscheck import crosscheck
        from aqmlab.scenario import load
        from aqmlab.sweep import _apply, points

        variants = kw.get("variants")
        pts = points(grid, kw.get("zipped"))
        if variants is not None:
            pts = [{**p, "variant": v} for p in pts for v in variants]
        base = copy.deepcopy(dict(base)) if isinstance(base, dict) else load(base)
        for p in pts:
            s = copy.deepcopy(base)
            _apply(s, p, variants)
            label = ", ".join(f"{k} = {v}" for k, v in p.items()) or "the scenario"
            head = f"### {phase}: {label}"
            try:
                cc = crosscheck(
                    s,
                    runs=kw.get("runs", 1),
                    per_run=kw.get("per_run"),
                    workers=self.workers,
                    cache=self.ns2_cache,
                )
            except ns2.Unsupported as e:
                self.ns2_sections.append(
                    "\n".join([head, "", "Not runnable in ns-2.35:", *_grouped(e.problems)])
                )
                continue
            body = cc.markdown().replace("\n### ", "\n#### ").removeprefix("### ")
            self.ns2_sections.append(f"{head}\n\n#### {body}")

    def timeseries(self, key: str):
        """The time series of one run of this experiment's sweeps (``SweepResult.keys``)."""
        from aqmlab.store import Store

        if self.ns2_pass is not None:
            return self.ns2_pass.series[key].copy()

        with Store(self.db) as st:
            return st.timeseries(key)

    def figure(self, caption: str, path: Path) -> None:
        self.figures.append((caption, path))


@dataclass
class Experiment:
    name: str
    title: str
    source: str
    run: Callable[[Context], list[Claim]]
    #: Every claim the reproduction judges, declared before its runs (aqmlab.claims).
    declared: Declarations
    description: str = ""


def registry() -> dict[str, Experiment]:
    """Every experiment module in aqmlab.experiments, by name."""
    import aqmlab.experiments as pkg

    found = {}
    for m in pkgutil.iter_modules(pkg.__path__):
        mod = importlib.import_module(f"aqmlab.experiments.{m.name}")
        exp = getattr(mod, "EXPERIMENT", None)
        if isinstance(exp, Experiment):
            found[exp.name] = exp
    return dict(sorted(found.items()))


def _judged(c: Claim, quick: bool) -> tuple[bool, str, str]:
    """(holds, verdict shown, how judged) of a claim in a report of this size."""
    ok, rule = c.verdict()
    if quick and c.needs_full_size:
        at_quick = f"it holds ({rule.removeprefix('holds: ')})" if ok else rule
        return (
            ok,
            "needs full size",
            (f"at quick size {at_quick}; judged at full size only: {c.needs_full_size}"),
        )
    return ok, "yes" if ok else "**no**", rule


def _summary(rows: list[tuple[Claim, bool, str, str]], quick: bool) -> str:
    held = sum(ok for _, ok, _, _ in rows)
    line = f"Claims holding: {held} of {len(rows)}."
    deferred = [ok for c, ok, _, _ in rows if quick and c.needs_full_size]
    if deferred:
        judged = [ok for c, ok, _, _ in rows if not c.needs_full_size]
        line += (
            f" {len(deferred)} of them can only be judged at full size (“needs full size” "
            f"below; {sum(deferred)} of those hold at quick size); of the "
            f"{len(judged)} judged here, {sum(judged)} hold."
        )
    return line


# The report's look in a browser: readable tables (the claims table is wide), verdicts in
# colour, figures within the page width.
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.45;color:#222;
 max-width:78em;margin:2em auto;padding:0 1.5em}
h1{font-size:1.6em;line-height:1.25}
table{border-collapse:collapse;margin:1em 0;font-size:.88em;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f0f0f0}
tr:nth-child(even) td{background:#fafafa}
td.no{color:#b00;font-weight:bold}
td.defer{color:#855d00;font-style:italic;white-space:nowrap}
td.yes{color:#276b2e}
img{max-width:100%;height:auto;display:block;margin:1.5em 0 .3em}
"""

# Verdict cells of the claims table -> a class for CSS, by their exact Markdown text.
_VERDICT_CLASS = {"**no**": "no", "needs full size": "defer", "yes": "yes"}


def render_html(md_text: str, title: str) -> str:
    """report.md as a standalone HTML page (CommonMark with tables; raw HTML in the
    Markdown is escaped, not passed through)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(md_text)
    for tok, nxt in itertools.pairwise(tokens):
        if tok.type == "td_open" and nxt.type == "inline" and nxt.content in _VERDICT_CLASS:
            tok.attrSet("class", _VERDICT_CLASS[nxt.content])
    body = md.renderer.render(tokens, md.options, {})
    return (
        f"<!doctype html>\n<html lang=en>\n<meta charset=utf-8>\n<title>{html.escape(title)}"
        f"</title>\n<style>{CSS}</style>\n<body>\n{body}</body>\n</html>\n"
    )


def _grouped(problems: list[tuple[str, str]]) -> list[str]:
    """What ns-2.35 cannot run, one line per kind: `flows[*].x` stands for every flow."""
    import re

    groups: dict[tuple[str, str], list[str]] = {}
    for path, what in problems:
        groups.setdefault((re.sub(r"\[\d+\]", "[*]", path), what), []).append(path)
    return [
        f"- `{star}` ({len(paths)} of them): {what}"
        if len(paths) > 1
        else f"- `{paths[0]}`: {what}"
        for (star, what), paths in groups.items()
    ]


def _ns2_part(ctx: Context) -> list[str]:
    """The report's ns-2.35 section (`reproduce --ns2`): one entry per configuration."""
    runnable = sum("Not runnable in ns-2.35" not in s for s in ctx.ns2_sections)
    return [
        "## ns-2.35 beside aqmlab",
        "",
        f"Every configuration of this reproduction's sweeps, run in ns-2.35 as well "
        f"(`aqmlab crosscheck`, docs/ns2.md: the same start times, the sweep's replications; "
        f"a metric is flagged where the 95% intervals are apart and the means more than 5%): "
        f"{runnable} of {len(ctx.ns2_sections)} configurations run in ns-2.35; the others "
        "use what ns-2.35 lacks, listed with each.",
        "",
        *[x for s in ctx.ns2_sections for x in (s, "")],
    ]


def write_report(
    exp: Experiment,
    ctx: Context,
    claims: list[Claim],
    seconds: float,
    ns2_att: dict[str, Any] | None = None,
) -> Path:
    """report.md, and report.html rendered from it: one source, two outputs. ``ns2_att``:
    each claim's ns-2.35 attribution (`reproduce --ns2`), two more columns."""
    rows = [(c, *_judged(c, ctx.quick)) for c in claims]
    size = "quick" if ctx.quick else "full"
    summary = _summary([(c, ok, shown, rule) for c, ok, shown, rule in rows], ctx.quick)
    if ns2_att is not None:
        from aqmlab import reproduce_ns2

        summary += " " + reproduce_ns2.summary(ns2_att)
    md = [
        f"# {exp.title}",
        "",
        f"Source: {exp.source}. Size: {size}. Engine {_core.ENGINE_VERSION}. "
        f"Wall time {seconds:.1f} s. {summary}",
        "",
    ]
    if exp.description:
        md += [exp.description, ""]
    head = "| claim | paper says | we measured | holds? | how judged |"
    if ns2_att is not None:
        head += " ns-2.35 measured | in ns-2.35 |"
    md += [head, "|---" * head.count(" |") + "|"]
    for c, _ok, shown, rule in rows:
        measured = f"{fmt(c.measured)} {c.unit}".strip()
        texts = [c.id, c.says, measured, shown, rule]
        if ns2_att is not None:
            a = ns2_att[c.id]
            shown = "" if a.measured is None else f"{fmt(a.measured)} {a.unit}".strip()
            texts += [shown, a.text]
        md.append("| " + " | ".join(cell(x) for x in texts) + " |")
    md += ["", exp.declared.table(), ""]
    for note in ctx.notes:
        md += [note, ""]
    if ctx.ns2:
        md += _ns2_part(ctx)
    for caption, path in ctx.figures:
        md += [f"![{caption}]({path.name})", "", f"*{caption}*", ""]
    if ctx.ns2_figures:
        md += ["## The figures from ns-2.35's runs", ""]
        for caption, path in ctx.ns2_figures:
            cap = f"ns-2.35: {caption}"
            md += [f"![{cap}](ns2/{path.name})", "", f"*{cap}*", ""]
    text = "\n".join(md)
    (ctx.out / "report.md").write_text(text, "utf-8")
    (ctx.out / "report.html").write_text(render_html(text, exp.title), "utf-8")
    return ctx.out / "report.md"


def _ns2_pass(exp: Experiment, ctx: Context, claims: list[Claim]) -> dict[str, Any]:
    """The reproduction again with ns-2.35 as its simulator (aqmlab.reproduce_ns2); its
    figures go to ns2/ beside the report. Returns each claim's attribution."""
    from aqmlab import reproduce_ns2

    p = reproduce_ns2.Ns2Pass()
    ctx_n = Context(
        out=ctx.out / "ns2",
        quick=ctx.quick,
        workers=ctx.workers,
        progress=ctx.progress,
        sink=ctx.sink,
        ns2_pass=p,
        aqmlab_db=ctx.db,
        ns2_cache=ctx.ns2_cache,
    )
    ctx_n.out.mkdir(parents=True, exist_ok=True)
    error = None
    claims_n: list[Claim] = []
    try:
        claims_n = exp.run(ctx_n)
        exp.declared.audit(claims_n)
    except reproduce_ns2.NotRunnableInNs2 as e:
        error = str(e)
    except Exception as e:  # the aqmlab report is still written, with the reason
        import traceback

        (ctx_n.out / "error.txt").write_text(traceback.format_exc(), "utf-8")
        error = f"the ns-2.35 pass stopped ({type(e).__name__}: {e}; ns2/error.txt)"
    ctx.ns2_figures = [(cap, path) for cap, path in ctx_n.figures]
    return reproduce_ns2.attribute(claims, claims_n, p, error)


def reproduce(
    name: str | None = None,
    *,
    quick: bool = False,
    out: str | Path = "results/reproduce",
    workers: int | None = None,
    progress: bool = True,
    ns2: bool = False,
) -> dict[str, tuple[int, int, Path]]:
    """Runs one registered experiment (or all of them, at quick size when ``name`` is
    None) and writes their reports. Returns {name: (claims held, claims, report path)}."""
    reg = registry()
    if name is not None and name not in reg:
        raise KeyError(f"unknown experiment {name!r}; registered: {', '.join(reg)}")
    names = [name] if name is not None else list(reg)
    if name is None:
        quick = True
    done = {}
    for n in names:
        exp = reg[n]
        sink = ReproductionProgress(n) if progress else None
        ctx = Context(
            out=Path(out) / n, quick=quick, workers=workers, progress=progress, sink=sink, ns2=ns2
        )
        ctx.out.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        att = None
        try:
            if ns2:
                ctx.ns2_cache = ctx.out / "ns2-cache"
            claims = exp.run(ctx)
            exp.declared.audit(claims)
            if ns2:
                att = _ns2_pass(exp, ctx, claims)
        finally:
            if sink is not None:
                sink.close()
        path = write_report(exp, ctx, claims, time.perf_counter() - t0, att)
        held = sum(c.verdict()[0] for c in claims)
        later = [c.verdict()[0] for c in claims if quick and c.needs_full_size]
        done[n] = Outcome(held, len(claims), path, quick, len(later), sum(later))
    return done


class Outcome(tuple):
    """(claims held, claims, report path) of one reproduction, and at quick size how many
    claims only a full-size run judges (``deferred``) and how many of those hold at this
    size anyway (``deferred_held``)."""

    def __new__(cls, held, total, path, quick=False, deferred=0, deferred_held=0):
        self = super().__new__(cls, (held, total, path))
        self.quick, self.deferred, self.deferred_held = quick, deferred, deferred_held
        return self

    def line(self, name: str) -> str:
        """The one-line summary `aqmlab reproduce` prints: at quick size it says what was
        judged, so that claims left for full size read neither as passes nor as failures."""
        held, total, path = self
        where = f"report {path} (and report.html)"
        if not self.quick:
            return f"{name}: {held} of {total} claims hold; {where}"
        if not self.deferred:
            return f"{name} (quick): {held} of {total} claims hold; {where}"
        judged = total - self.deferred
        judged_held = held - self.deferred_held
        return (
            f"{name} (quick): {judged} of {total} claims judged"
            + (f", {judged_held} of them hold" if judged else "")
            + f"; {self.deferred_held} of the {self.deferred}{' others' if judged else ''} look "
            f"as the paper at this size; run `aqmlab reproduce {name}` to judge them; {where}"
        )


__all__ = [
    "Claim",
    "Context",
    "Declarations",
    "Declared",
    "Experiment",
    "at_least",
    "at_most",
    "fmt",
    "increasing",
    "judge",
    "less_than",
    "registry",
    "reproduce",
    "within",
    "write_report",
]
