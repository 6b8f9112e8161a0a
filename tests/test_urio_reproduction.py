"""The URIO reproduction's parts: its network, the core schemes' tables, the claim rules
(each must be able to fail) and the scenario file."""

from pathlib import Path

import pytest

import aqmlab
from aqmlab import scenario as sc
from aqmlab.experiments import urio
from aqmlab.experiments.urio_claims import band_check, bias_check, udp_check
from aqmlab.stats import trend
from aqmlab.sweep import set_field

ROOT = Path(__file__).resolve().parent.parent


def _aggregates(res):
    return res.tables["aggregates"].set_index("class")


def test_each_edge_meters_only_its_own_clients_flows():
    """Experiment (a): aggregate i has 5·i TCP flows, and its edge's conditioner (on the
    input from client i) counts exactly those; (d): aggregates 4 and 5 are one UDP flow."""
    s = urio.network("a", True)
    s["simulation"]["duration"] = "2s"
    a = _aggregates(aqmlab.run(s))
    assert a["flows"].tolist() == [5, 10, 15, 20, 25]
    s = urio.network("d", True)
    kinds = {f["name"]: f["type"] for f in s["flows"]}
    assert [k for k, v in kinds.items() if v == "cbr"] == ["a4_udp", "a5_udp"]
    assert len(kinds) == 32


def test_rio_gives_more_flows_more_throughput_in_one_seeded_run():
    """The bias the reproduction's first claim is about, in one 20-s run of seed 1 (0.05 s
    of CPU): the five aggregates' throughputs rise with their flows. At full size (10 runs
    of 100 s) RIO gives 1.34 → 2.60 Mb/s (the full-size report); here the ends must differ by a
    factor > 1.5, below the full-size 1.95, since a 20-s run still carries its start."""
    s = urio.network("a", True)
    s["simulation"]["run"] = 0
    for path, v in urio.draw_starts(s).items():
        set_field(s, path, v)
    thr = _aggregates(aqmlab.run(s))["throughput_bps"].tolist()
    assert thr == sorted(thr) and thr[-1] > 1.5 * thr[0], thr
    # The five aggregates share the 10 Mb/s bottleneck: their sum is the link's data rate.
    assert sum(thr) == pytest.approx(10e6, rel=0.02)


def test_the_three_core_schemes_share_every_rio_field():
    rio = urio.core_aqm("RIO")
    assert rio["type"] == "rio" and rio["mode"] == "rio_c" and rio["w_q"] == 0.002
    assert [(lv["min_th"], lv["max_th"], lv["max_p"]) for lv in rio["levels"]] == [
        (200, 240, 0.02),
        (160, 200, 0.06),
        (40, 160, 0.12),
    ]
    u = urio.core_aqm("URIO", reset_timeout="0.1s")
    assert u == {**rio, "type": "urio", "reset_timeout": "0.1s"}
    d = urio.core_aqm("DRIO", list_len=8)
    assert d == {**rio, "type": "drio", "list_len": 8}
    aqmlab.validate(urio.network("a", True, "RIO"))


def test_sensitivity_points_vary_one_parameter_at_a_time():
    pts = urio.sensitivity_points("DRIO", {"list_len": 40, "delta": 0.05})
    assert pts == {
        "default": {},
        "list_len=10": {"list_len": 10},
        "delta=0.0125": {"delta": 0.0125},
        "list_len=160": {"list_len": 160},
        "delta=0.2": {"delta": 0.2},
    }
    # A step of 0.5 times 4 would pass 1: it stops at 1; a list of 4 divided stops at 2.
    pts = urio.sensitivity_points("DRIO", {"list_len": 4, "delta": 0.5})
    assert "delta=1" in pts and "list_len=2" in pts
    assert list(urio.sensitivity_points("URIO", {})) == [
        "reset_timeout=0.1s",
        "reset_timeout=1s",
        "reset_timeout=10s",
    ]


def test_the_claim_rules_hold_on_fair_and_biased_rows_and_fail_on_the_other():
    fair = [(2.05, 0.02), (1.95, 0.02), (2.1, 0.03), (1.9, 0.02), (2.0, 0.01)]
    rising = [(1.3, 0.01), (1.7, 0.02), (2.0, 0.02), (2.3, 0.03), (2.6, 0.03)]
    assert band_check(fair)(None)[0]
    assert not band_check(rising)(None)[0]
    assert band_check([(2.19, 0.1)] * 5)(None)[0]  # the band is on the means, not the CIs
    assert not band_check([(1.79, 0.1)] * 5)(None)[0]
    assert bias_check(rising, 1)(None)[0]
    assert not bias_check(rising, -1)(None)[0]
    assert bias_check(rising[::-1], -1)(None)[0]
    assert not bias_check(fair, 1)(None)[0]
    # Ordered, but the ends' intervals overlap: not a bias.
    wide = [(1.8, 0.3), (1.9, 0.1), (2.0, 0.1), (2.1, 0.1), (2.2, 0.3)]
    assert not bias_check(wide, 1)(None)[0]
    # One swap of neighbours among five is Spearman's rho = 0.9, still a trend.
    swapped = [rising[1], rising[0], *rising[2:]]
    assert trend([m for m, _ in swapped]) == pytest.approx(0.9)
    assert bias_check(swapped, 1)(None)[0]
    udp = [(1.17, 0.01)] * 3 + [(3.24, 0.01)] * 2
    assert udp_check(udp)(None)[0]
    assert not udp_check(fair)(None)[0]
    ok, how = udp_check([(1.9, 0.01)] * 3 + [(3.0, 0.01)] * 2)(None)
    assert not ok and how.startswith("TCP 1.9, 1.9, 1.9; UDP 3, 3, needs")


def test_the_scenario_file_is_the_reproductions_network_with_urio_at_the_core():
    """scenarios/diffserv_urio.toml is the network the reproduction builds (10 TCP flows
    per aggregate, CIR 0.5 / PIR 1.0 Mb/s, fixed starts), with URIO at the core: equal
    field for field once both carry RIO-C at the core."""
    f = sc.load(ROOT / "scenarios" / "diffserv_urio.toml")
    core = f["links"][urio.BOTTLENECK]["queue"]
    assert core["aqm"] == urio.core_aqm("URIO", alpha=0.5, reset_timeout="1s")
    core["aqm"] = urio.core_aqm("RIO")
    n = urio.network("e", False)  # (e) with every CIR at 0.5 is the paper's base network
    for node in n["nodes"]:
        for c in node.get("conditioners", []):
            c["classes"][0]["meter"].update(cir="0.5Mbps", pir="1Mbps")
    for nf, ff in zip(n["flows"], f["flows"], strict=True):
        nf["start"] = ff["start"]
    assert aqmlab.canonical(f) == aqmlab.canonical(n)


def test_with_three_schemes_every_claim_table_and_sensitivity_row_is_computed(
    tmp_path, monkeypatch
):
    """The report's plumbing with three schemes made equal: each is RIO-C here (core_aqm
    ignores the scheme and its parameters), so three identical rows per experiment show
    that the one sweep of 15 variants, the tables, Fig. 5, the claims and the sensitivity
    sweep of 16 points are keyed and laid out right, independently of what DRIO and URIO
    do (test_reproduce runs them for real)."""
    from aqmlab.reproduce import reproduce

    rio = urio.core_aqm

    monkeypatch.setattr(urio, "SENS_AT_QUICK", True)
    # Three distinct scenarios (the store keys runs by scenario) that act alike: no flow
    # is ECN-capable, so `ecn` and `mark_above_max_th` never change a decision. Each
    # sensitivity point gets its own mean_pktsize (the idle decay's packet time) so that
    # its scenario differs too; the main sweep (no parameters) keeps 1040.
    ecn = {"RIO": {}, "DRIO": {"ecn": True}, "URIO": {"ecn": True, "mark_above_max_th": False}}
    seen: dict[str, int] = {}

    def fake(scheme, **params):
        k = seen.setdefault(repr(sorted(params.items())), len(seen))
        return {**rio("RIO"), **ecn[scheme], "mean_pktsize": 1040 + k}

    monkeypatch.setattr(urio, "core_aqm", fake)
    monkeypatch.setattr(
        urio,
        "engine_defaults",
        lambda s: {"list_len": 40, "delta": 0.05} if s == "DRIO" else {"reset_timeout": "1s"},
    )
    done = reproduce("urio", quick=True, out=tmp_path, workers=1, progress=False)
    _held, n, path = done["urio"]
    assert n == 19
    md = path.read_text()
    assert "could not be checked" not in md
    # The same network and seeds under three labels: three equal rows per experiment.
    for title in ("Fig. 5(a)", "Fig. 5(d)"):
        block = md.split(title, 1)[1].split("\n\n", 2)[1].splitlines()
        rows = [r.split("|", 2)[2] for r in block if r.startswith(("| RIO", "| DRIO", "| URIO"))]
        assert len(rows) == 3 and rows[0] == rows[1] == rows[2]
    assert "Sensitivity of DRIO (1 replications per point; engine defaults list_len = 40" in md
    for label in ("list_len=10", "delta=0.2", "reset_timeout=0.1s", "reset_timeout=10s"):
        assert f"| {label} | " in md
    # Equal rows make the DRIO-vs-RIO UDP comparison an equality: 'mitigated' (≤) holds.
    assert "| fig5d DRIO mitigates UDP |" in md
    assert (tmp_path / "urio" / "fig5.png").stat().st_size > 10_000


def test_table2_note_gives_the_chance_an_exact_model_meets_the_paper_intervals():
    """With our half-widths equal to the paper's (± 0.01, 10 runs each), the difference of
    two means of one true value has sd √2·0.01/t, so each falls within ± 0.01 with
    probability erf(t/2) = 0.8903 for t = t975(9) = 2.2622, five of them 0.559, fifteen
    0.175; the totals' gap is ours minus the paper's."""
    from math import erf

    from aqmlab.sweep import t975

    p1 = erf(t975(9) / 2)
    assert abs(p1 - 0.8903) < 1e-4
    rows = {s: [(p + 0.002, 0.01) for p in urio.PAPER_TABLE2[s]] for s in urio.SCHEMES}
    note = urio.table2_note(rows, 10)
    assert note.count(f"by sampling error alone: {p1**5:.0%}") == 3 and f"{p1**5:.0%}" == "56%"
    assert f"all fifteen: {p1**15:.0%}" in note
    assert "exceed the paper's by 0.01-0.01 Mb/s" in note
