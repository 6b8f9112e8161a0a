"""aqmlab reproduce: the registry, computed claims, and the reports."""

import pytest

from aqmlab.cli import main
from aqmlab.reproduce import (
    Claim,
    Context,
    Experiment,
    at_least,
    registry,
    within,
    write_report,
)


def test_registry_lists_the_demonstrations():
    assert {"mm1k", "tcp_dumbbell"} <= set(registry())


def test_a_claim_that_does_not_hold_is_reported_as_such(tmp_path):
    ctx = Context(out=tmp_path, quick=True, workers=1, progress=False)
    claims = [
        Claim("right", "x = 1", 1.004, within(1.0, rel=0.01)),
        Claim("wrong", "x = 1", 1.2, within(1.0, rel=0.01)),
        Claim("bound", "y ≥ 3", 2.0, at_least(3.0)),
    ]
    exp = Experiment("t", "T", "test", run=lambda c: claims)
    md = write_report(exp, ctx, claims, 0.0).read_text()
    assert "Claims holding: 1 of 3." in md
    assert "| right | x = 1 | 1.004  | yes |" in md
    assert "| wrong | x = 1 | 1.2  | **no** |" in md
    assert "2 ≥ 3" in md
    html = (tmp_path / "report.html").read_text()
    assert "<td class=no>no" in html


def test_reproduce_mm1k_quick_computes_its_claims(tmp_path, capsys):
    assert main(["reproduce", "mm1k", "--quick", "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "mm1k: 8 of 8 claims hold" in out
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
            27,
            ["fig2_goodput.png", "fig2_mean_queue.png", "fig3_goodput.png", "fig4_overflow.png"],
        ),
        ("psand", 13, ["fig3.png", "fig4.png", "fig5a.png", "fig6c.png"]),
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
    assert f"of {n_claims} claims hold" in out
    md = (tmp_path / name / "report.md").read_text()
    assert "could not be checked" not in md
    for f in figures:
        assert (tmp_path / name / f).stat().st_size > 10_000
    if name == "rem":
        rows = {
            line.split("|")[1].strip(): line for line in md.splitlines() if line.startswith("| fig")
        }
        assert "| yes |" in rows["fig2 REM drop loss ≈ DropTail"]
        assert "| yes |" in rows["fig3 REM above RED(10:30)"]


def _hand_written_spearman(x):
    """The rank correlation rem.py computed by hand before it used scipy (reference)."""
    import numpy as np
    import pandas as pd

    r = pd.Series(x).rank().to_numpy()
    i = np.arange(len(x), dtype=float)
    return float(np.corrcoef(i, r)[0, 1]) if len(x) > 1 else float("nan")


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
def test_rem_spearman_from_scipy_equals_the_former_hand_written_one():
    import math

    import numpy as np

    from aqmlab.experiments.rem import _spearman

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
