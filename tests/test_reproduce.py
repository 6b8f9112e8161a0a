"""aqmlab reproduce: the registry, computed claims, and the reports."""

import re
from pathlib import Path

import pytest

from aqmlab.cli import main
from aqmlab.reproduce import (
    Context,
    Declarations,
    Declared,
    Experiment,
    at_least,
    at_most,
    fmt,
    increasing,
    judge,
    less_than,
    registry,
    within,
    write_report,
)


def test_registry_lists_the_demonstrations():
    assert {"mm1k", "tcp_dumbbell"} <= set(registry())


def test_a_claim_that_does_not_hold_is_reported_as_such(tmp_path):
    ctx = Context(out=tmp_path, quick=True, workers=1, progress=False)
    d = Declarations(
        "Tolerances:",
        {
            "x": Declared("x = 1", "within 1%", "a test", lambda: within(1.0, rel=0.01)),
            "y": Declared("y ≥ 3", "at least 3", "a test", lambda: at_least(3.0)),
        },
    )
    claims = [
        d["x"].claim("right", 1.004),
        d["x"].claim("wrong", 1.2),
        d["y"].claim("bound", 2.0),
    ]
    exp = Experiment("t", "T", "test", run=lambda c: claims, declared=d)
    md = write_report(exp, ctx, claims, 0.0).read_text()
    assert "Claims holding: 1 of 3." in md
    assert "| right | x = 1 | 1.004 | yes | holds: 1.004 within 1 ± 1% (off by 0.004) |" in md
    assert (
        "| wrong | x = 1 | 1.2 | **no** | 1.2 (off by 0.2), needs 1 ± 1% (off by at most 0.01) |"
        in md
    )
    assert "| bound | y ≥ 3 | 2 | **no** | 2, needs ≥ 3 |" in md
    html = (tmp_path / "report.html").read_text()
    assert '<td class="no"><strong>no</strong></td>' in html


def test_reproduce_mm1k_quick_computes_its_claims(tmp_path, capsys):
    assert main(["reproduce", "mm1k", "--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "mm1k (quick): 8 of 8 claims hold" in out
    md = (tmp_path / "mm1k" / "report.md").read_text()
    assert "P_K = 0.023493" in md and "mm1k_L.png" in md
    assert (tmp_path / "mm1k" / "mm1k_L.png").stat().st_size > 0
    # A second invocation resumes from the store: nothing is recomputed, same report table.
    assert main(["reproduce", "mm1k", "--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    md2 = (tmp_path / "mm1k" / "report.md").read_text()
    table = [line for line in md.splitlines() if line.startswith("| rho")]
    assert table == [line for line in md2.splitlines() if line.startswith("| rho")]


@pytest.mark.parametrize(
    ("name", "n_claims", "figures"),
    [
        (
            "rem",
            35,
            ["fig2_goodput.png", "fig2_mean_queue.png", "fig3_goodput.png", "fig4_overflow.png"],
        ),
        (
            "psand",
            29,
            [
                "fig3.png",
                "fig4.png",
                "fig4_100.png",
                "max_p.png",
                "fig5a.png",
                "fig6c.png",
                "sens_fig3.png",
                "fig3_spread.png",
                "kcur_fig3.png",
            ],
        ),
        ("bio", 20, ["fig4.png", "fig2.png", "fig3.png"]),
        ("urio", 19, ["fig5.png"]),
        (
            "cioq",
            29,
            ["fig2.png", "fig3.png", "fig4.png", "fig5.png", "nu_sweep.png", "fig2_crossbar.png"],
        ),
    ],
)
def test_paper_reproductions_run_end_to_end_at_quick_size(
    tmp_path, capsys, name, n_claims, figures
):
    """The REM and PSAND reproductions run, compute every claim from their runs (no claim
    is left uncheckable) and write their figures; REM's central claims hold even at quick
    size (its queue near b* with dropping, and ECN's loss below DropTail's)."""
    assert main(["reproduce", name, "--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"of {n_claims} claims" in out
    md = (tmp_path / name / "report.md").read_text()
    assert "could not be checked" not in md
    for f in figures:
        assert (tmp_path / name / f).stat().st_size > 10_000
    rows: dict[str, str] = {}
    for line in md.splitlines():  # the claims table comes first (PSAND's tolerance table too)
        if line.startswith("| fig"):
            rows.setdefault(line.split("|")[1].strip(), line)
    if name == "rem":
        assert "| yes |" in rows["fig2 REM drop loss ≈ DropTail"]
        assert "| yes |" in rows["fig3 REM above RED(10:30)"]
        # Equilibrium claims and the paper's 20-100-user ranges are not judged at quick size.
        assert "| needs full size | at quick size " in rows["fig2 REM drop queue near b*"]
        assert "| needs full size | at quick size " in rows["fig3 ECN range"]
        # Every tolerance is written in the report beside the claims.
        assert "Tolerances (written in rem_claims.py before the runs they judge" in md
        assert "Source: S. Athuraliya, V. H. Li, S. H. Low, Q. Yin, " in md
        # Wired DropTail replications differ by their drawn start times: no zero interval.
        droptail = [line for line in md.splitlines() if line.startswith("| DropTail |")]
        assert len(droptail) == 4 and not any("± 0 |" in line for line in droptail)
    elif name == "bio":
        # Every BIO claim rests on the 100-470 s window: judged at full size only.
        assert "| needs full size |" in rows["fig4 BIO has the smallest even-odd gap"]
        assert "Tolerances, fixed before the first run" in md
        assert "| BIO-AAI no ECN |" in md  # beyond the paper: its Section 5 question
    elif name == "cioq":
        # One replication per point: every claim is judged at full size only.
        assert "| needs full size |" in rows["fig4x4 1 low-speedup output queue"]
        xbar = [x for x in md.splitlines() if x.startswith("| crossbar 16x16 7 loss slightly")]
        assert len(xbar) == 1 and "| needs full size |" in xbar[0]
        assert "Tolerances, fixed before the first full run" in md
        assert "Line cards instead" in md and "crossbar (iSLIP" in md
    elif name == "urio":
        # 2 replications of 20 s: every claim is judged at full size only.
        assert "| needs full size |" in rows["fig5a RIO biased by microflows"]
        assert "Tolerances, fixed before the first run" in md
        assert "Table 2 (ours, mean ± 95% CI; the paper's in parentheses" in md
        assert "| 5 | 1.5 | 2.5 | " in md  # Table 2's last row: CIR and Eq. (4)'s share
    else:
        assert "| needs full size |" in rows["fig5a variance"]
        # Fig. 3 is judged on 20 replications at full size; quick size has 5 (psand's CLAIMS).
        assert "| needs full size | at quick size " in rows["fig3 PSAND recovery < 5 s"]
        assert "| needs full size |" not in rows["fig4 PSAND controls avg better than ARED_Floyd"]
        assert 'Source: T. Alemu, A. Jean-Marie, "Dynamic Configuration of RED Parameters"' in md


def _hand_written_spearman(x):
    """The rank correlation rem.py computed by hand before it used scipy (reference)."""
    import numpy as np
    import pandas as pd

    r = pd.Series(x).rank().to_numpy()
    i = np.arange(len(x), dtype=float)
    return float(np.corrcoef(i, r)[0, 1]) if len(x) > 1 else float("nan")


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
def test_the_trend_from_scipy_equals_the_former_hand_written_spearman():
    import math

    import numpy as np

    from aqmlab.stats import trend as _spearman

    assert _spearman([28.2, 33.6, 41.4, 46.8]) == 1.0
    assert _spearman([4.0, 3.0, 2.0, 1.0]) == -1.0
    assert _spearman([1.0, 2.0, 2.0, 3.0]) == 0.9486832980505139  # 3/√10, tie averaged
    assert _spearman([26.81, 34.85, 28.56, 26.41, 30, 31, 29, 40]) == 0.4761904761904762
    assert math.isnan(_spearman([5.0]))
    assert math.isnan(_spearman([1.0, float("nan"), 3.0]))
    rng = np.random.default_rng(9)
    for n in range(2, 12):
        for _ in range(20):
            x = list(rng.integers(0, 5, n).astype(float))  # many ties
            a, b = _spearman(x), _hand_written_spearman(x)
            # Both are Pearson's r of average ranks; only the summation order differs, so
            # the last bit may (1e-16): far below the 4 digits shown and the 0.8 threshold.
            assert a == pytest.approx(b, rel=0, abs=1e-15) or (math.isnan(a) and math.isnan(b)), x


def test_numbers_in_reports_have_four_significant_digits_and_integers_stay_integers():
    assert fmt(14.8537) == "14.85"
    assert fmt(0.0120074) == "0.01201"
    assert fmt(0.333333) == "0.3333"
    assert fmt(1.0) == "1"
    assert fmt(1692.0) == "1692"
    assert fmt(7) == "7"
    assert fmt(123456.7) == "123457"
    assert fmt(0.00001234) == "1.234e-05"
    assert fmt(float("inf")) == "∞"
    assert fmt("55-98%") == "55-98%"


def test_a_failed_rule_reads_as_the_condition_that_was_not_met():
    assert at_most(10.0)(14.8537) == (False, "14.85, needs ≤ 10")
    assert at_most(10.0)(8.2) == (True, "holds: 8.2 ≤ 10")
    assert at_least(5.0)(8.2) == (True, "holds: 8.2 ≥ 5")
    assert at_least(1.0)(0.333333) == (False, "0.3333, needs ≥ 1")
    assert within(0.0122401, rel=0.3)(0.0052473) == (
        False,
        "0.005247 (off by 0.006993), needs 0.01224 ± 30% (off by at most 0.003672)",
    )
    assert within(2.0, abs_=0.5)(2.25) == (True, "holds: 2.25 within 2 ± 0.5 (off by 0.25)")
    assert increasing([0.001, 0.003, 0.002])(None) == (
        False,
        "0.001, 0.003, 0.002, needs each above the previous (0.003 → 0.002 does not rise)",
    )
    assert increasing([0.001, 0.002])(None) == (True, "holds: strictly increasing: 0.001 < 0.002")
    assert less_than("PSAND", 1.848, "ARED_Feng", 1.69)(None) == (
        False,
        "PSAND 1.848 vs ARED_Feng 1.69, needs PSAND < ARED_Feng",
    )
    assert judge(False, value="", needs="A > B", holds="3 > 2") == (False, "needs A > B")


def test_a_quick_report_shows_which_claims_need_full_size_and_a_full_one_judges_them(tmp_path):
    d = Declarations(
        "Tolerances:",
        {
            "settles": Declared(
                "queue near 20", "≤ 10", "a test", lambda: at_most(10.0), "50 s periods"
            ),
            "held": Declared("x ≥ 3", "≥ 3", "a test", lambda: at_least(3.0), "100 replications"),
            "plain": Declared("y ≥ 3", "≥ 3", "a test", lambda: at_least(3.0)),
        },
    )
    claims = [
        d["settles"].claim("settles", 14.85),
        d["held"].claim("held", 4.0),
        d["plain"].claim("plain", 2.0),
    ]
    exp = Experiment("t", "T", 'A. Author, "Title", Venue, 2001', run=lambda c: claims, declared=d)
    quick = Context(out=tmp_path, quick=True, workers=1, progress=False)
    md = write_report(exp, quick, claims, 0.0).read_text()
    assert (
        "| settles | queue near 20 | 14.85 | needs full size | at quick size 14.85, needs ≤ 10; "
        "judged at full size only: 50 s periods |" in md
    )
    assert (
        "| held | x ≥ 3 | 4 | needs full size | at quick size it holds (4 ≥ 3); "
        "judged at full size only: 100 replications |" in md
    )
    assert "| plain | y ≥ 3 | 2 | **no** | 2, needs ≥ 3 |" in md
    assert (
        "Claims holding: 1 of 3. 2 of them can only be judged at full size (“needs full size” "
        "below; 1 of those hold at quick size); of the 1 judged here, 0 hold." in md
    )
    full = Context(out=tmp_path, quick=False, workers=1, progress=False)
    md = write_report(exp, full, claims, 0.0).read_text()
    assert "| settles | queue near 20 | 14.85 | **no** | 14.85, needs ≤ 10 |" in md
    assert "needs full size" not in md
    assert "Claims holding: 1 of 3.\n" in md


def test_every_reproduction_cites_its_source_not_a_path():
    for name, exp in registry().items():
        assert "../" not in exp.source and ".txt" not in exp.source, name
        assert re.search(r"\b(19|20)\d\d\b", exp.source), name  # a year
        assert "," in exp.source.split("(")[0], name  # authors, title, venue


def test_rem_droptail_replications_differ_by_their_drawn_starts_and_repeat_by_seed():
    """A wired DropTail run of the REM reproduction draws nothing in the engine: without
    per-replication start times its replications are one run repeated (a zero interval).
    With them (rem._draw_starts) two replications differ, each start lies in its stage's
    first START_WINDOW seconds, and the same seed and run give the same result."""
    import aqmlab
    from aqmlab import scenario as sc
    from aqmlab.experiments import rem

    # Two stages of 5 s at the paper's 64 Mb/s: 40 users, a few seconds of simulation.
    base = rem._base("64Mbps", 120, 1000, 2, 5.0)
    variants = {"DropTail": rem._variant(sc.droptail(), 40, False)}
    q = "queue:r0->r1:"
    metrics = [q + "mean_queue_pkts", q + "dropped_total", q + "dequeued"]

    def runs(**kw):
        res = aqmlab.sweep(base, variants=variants, runs=2, workers=1, progress=False, **kw)
        return res.runs[metrics]

    fixed = runs()
    assert fixed.iloc[0].equals(fixed.iloc[1])  # the defect: identical replications
    drawn = runs(per_run=rem._draw_starts)
    assert (drawn.iloc[0] != drawn.iloc[1]).all()
    assert drawn.equals(runs(per_run=rem._draw_starts))  # same seed and run, same result

    for r in (0, 1):
        starts = rem._draw_starts({**base, "simulation": {**base["simulation"], "run": r}})
        offsets = [
            int(starts[f"flows[{i}].start"].removesuffix("ns")) / 1e9 - 5.0 * (i // 20)
            for i in range(40)
        ]
        assert all(0.0 <= x < rem.START_WINDOW for x in offsets)


def test_a_quick_summary_line_says_what_it_judged_and_what_waits_for_full_size():
    from aqmlab.reproduce import Outcome

    p = Path("r/bio/report.md")
    assert Outcome(13, 20, p, True, 20, 13).line("bio") == (
        "bio (quick): 0 of 20 claims judged; 13 of the 20 look as the paper at this "
        "size; run `aqmlab reproduce bio` to judge them; report r/bio/report.md (and report.html)"
    )
    assert (
        Outcome(16, 29, p, True, 20, 12)
        .line("psand")
        .startswith(
            "psand (quick): 9 of 29 claims judged, 4 of them hold; 12 of the 20 others look"
        )
    )
    assert Outcome(8, 8, p, True).line("mm1k").startswith("mm1k (quick): 8 of 8 claims hold;")
    assert Outcome(8, 8, p).line("mm1k").startswith("mm1k: 8 of 8 claims hold;")
    held, total, path = Outcome(1, 2, p, True, 1, 0)
    assert (held, total, path) == (1, 2, p)
