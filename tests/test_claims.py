"""Claims declared once (aqmlab.claims): a claim is made only from its declaration, the
report's tolerance table comes from the same declarations, and the frame refuses a claim
not declared or a declaration left unjudged."""

import ast
from pathlib import Path

import pytest

from aqmlab.claims import Claim, Declarations, Declared, UndeclaredClaim, at_least, at_most
from aqmlab.reproduce import Experiment, registry

EXPERIMENTS = Path(__file__).resolve().parents[1] / "python" / "aqmlab" / "experiments"

D = Declarations(
    "Tolerances:",
    {
        "bound": Declared("y is at least 3", "y ≥ 3", "the source says so", lambda: at_least(3.0)),
        "below": Declared("z below w", "z ≤ w", "a direction only", lambda w: at_most(w)),
        "same rule": Declared("z below w, again", "z ≤ w", "a direction only", at_most),
        "plan": Declared("(one run)", "5 replications", "one run decides nothing"),
    },
)


def test_a_claim_takes_its_words_rule_and_size_from_its_declaration():
    c = D["below"].claim("z vs w", 2.0, 1.5, detail="w = 1.5", unit="pkts")
    assert (c.says, c.declared.key, c.unit) == ("z below w: w = 1.5", "below", "pkts")
    assert c.verdict() == (False, "2, needs ≤ 1.5")
    assert D["bound"].claim("y", 4.0).verdict() == (True, "holds: 4 ≥ 3")
    with pytest.raises(TypeError, match="run plan"):
        D["plan"].claim("p", 1.0)


def test_a_declaration_needs_its_words_rule_and_reason():
    with pytest.raises(ValueError, match="'why'"):
        Declared("words", "rule", " ")


def test_the_audit_refuses_an_undeclared_claim_and_an_unjudged_declaration():
    judged = [D["bound"].claim("y", 4.0), D["below"].claim("z", 1.0, 2.0)]
    with pytest.raises(UndeclaredClaim, match="never judged: same rule"):
        D.audit(judged)
    D.audit([*judged, D["same rule"].claim("z2", 1.0, 2.0)])  # "plan" judges nothing
    by_hand = Claim("stray", "words", 1.0, at_least(0.0))
    with pytest.raises(UndeclaredClaim, match="not made from a declaration: stray"):
        D.audit([*judged, D["same rule"].claim("z2", 1.0, 2.0), by_hand])
    other = Declarations("x", {"bound": Declared("y", "y ≥ 3", "why", lambda: at_least(3.0))})
    with pytest.raises(UndeclaredClaim, match="stray-other"):
        D.audit(
            [*judged, D["same rule"].claim("z2", 1.0, 2.0), other["bound"].claim("stray-other", 4)]
        )


def test_the_tolerance_table_gives_a_shared_rule_once_and_escapes_pipes():
    t = Declarations("H:", {"a": Declared("|x| small", "r", "w"), "b": Declared("s", "r", "w")})
    assert t.table().splitlines() == [
        "H:",
        "",
        "| claim | paper says | rule | why |",
        "|---|---|---|---|",
        "| a | \\|x\\| small | r | w |",
        "| b | s | as “a” |  |",
    ]


def test_every_reproduction_declares_its_claims():
    for name, exp in registry().items():
        assert isinstance(exp, Experiment)
        assert isinstance(exp.declared, Declarations), name
        assert len(exp.declared) > 0, name


def test_no_reproduction_makes_a_claim_by_hand_or_keeps_a_second_table_of_words():
    """Each claim is declared once: no Claim(...) outside aqmlab.claims, and none of the
    former side tables (TOLERANCES, SAYS) or report-table writers."""
    found = []
    for path in sorted(EXPERIMENTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Claim":
                found.append(f"{path.name}:{node.lineno}: Claim(...)")
            if isinstance(node, ast.Name) and node.id in ("TOLERANCES", "SAYS"):
                found.append(f"{path.name}:{node.lineno}: {node.id}")
            if isinstance(node, ast.FunctionDef) and "tolerance" in node.name:
                found.append(f"{path.name}:{node.lineno}: def {node.name}")
    assert not found, found
