"""aqmlab reproduce: the registry, computed claims, and the reports."""

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
