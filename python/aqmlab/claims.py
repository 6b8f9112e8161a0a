"""Claims: what a reproduction checks, declared before its runs, and the checks that judge
them.

A reproduction declares its claims once, at import, in one ``Declarations`` table: per claim
the paper's words (``says``), our rule in words (``rule``), why that strictness (``why``) and
the rule as code (``test``, a check factory beside its prose). After the runs a claim is made
only from its declaration (``Declared.claim``: the measured value and the references its
test needs, never new words or a new rule), the frame renders the report's tolerance table
from the same declarations, and ``Declarations.audit`` refuses a report with a claim that
was not declared or a declared claim that was not judged.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

#: A check: the measured value -> (holds, how it was judged).
Check = Callable[[Any], tuple[bool, str]]


@dataclass
class Claim:
    """A checkable statement: ``says`` (the source's words or number), the ``measured``
    value and how it is compared. ``check`` returns (holds, how it was judged).
    A reproduction makes its claims through ``Declared.claim``, which fills ``says``,
    ``check`` and ``needs_full_size`` from the declaration.

    ``needs_full_size``: why the claim cannot be judged at quick size (too few
    replications, periods or users for what it states); a quick-size report then shows
    "needs full size" instead of a verdict. Empty: judged at every size."""

    id: str
    says: str
    measured: float | str
    check: Check
    unit: str = ""
    needs_full_size: str = ""
    #: The configurations (sweep variant labels) whose runs the measured value is computed
    #: from; None: every configuration of the reproduction. The ns-2.35 pass judges a
    #: claim only when ns-2.35 runs all of them (aqmlab.reproduce_ns2).
    uses: tuple[str, ...] | None = None
    #: The declaration this claim was made from (None: a claim made by hand, which a
    #: reproduction's audit refuses).
    declared: Declared | None = field(default=None, repr=False, compare=False)

    def verdict(self) -> tuple[bool, str]:
        try:
            return self.check(self.measured)
        except (TypeError, ValueError) as e:
            return False, f"could not be checked: {e}"


@dataclass(frozen=True)
class Declared:
    """One claim as written before the runs: the paper's words, our rule, why that
    strictness, and the rule as code.

    ``test`` is a check factory: ``test(*refs)`` returns the check of one measured value,
    ``refs`` being what the rule compares against that only the runs give (another
    scheme's value, the list of pairs that failed...). None: a choice of the run plan
    written with the tolerances (how many replications...), shown in the table, judged by
    no claim. ``needs_full_size``: as ``Claim.needs_full_size``, for every claim made from
    this declaration."""

    says: str
    rule: str
    why: str
    test: Callable[..., Check] | None = None
    needs_full_size: str = ""
    #: The declaration's name in its table (set by ``Declarations``).
    key: str = ""

    def __post_init__(self) -> None:
        for name in ("says", "rule", "why"):
            if not getattr(self, name).strip():
                raise ValueError(f"a declared claim needs its {name!r} written down")

    def claim(
        self,
        id: str,
        measured: float | str,
        *refs: Any,
        unit: str = "",
        uses: tuple[str, ...] | None = None,
        detail: str = "",
        **named: Any,
    ) -> Claim:
        """The claim ``id`` judged by this declaration's test on ``measured``; ``detail``
        (e.g. the paper's number for this row) follows the declared words after a colon."""
        if self.test is None:
            raise TypeError(f"{self.key!r} is a choice of the run plan, not a claim: no test")
        return Claim(
            id,
            f"{self.says}: {detail}" if detail else self.says,
            measured,
            self.test(*refs, **named),
            unit=unit,
            needs_full_size=self.needs_full_size,
            uses=uses,
            declared=self,
        )


class UndeclaredClaim(ValueError):
    """A reproduction judged a claim it had not declared, or left a declared one unjudged."""


class Declarations(Mapping[str, Declared]):
    """A reproduction's claims as declared before its runs, by name, with the heading of
    the report's tolerance table."""

    def __init__(self, heading: str, entries: Mapping[str, Declared]):
        self.heading = heading
        self._entries = {k: replace(d, key=k) for k, d in entries.items()}

    def __getitem__(self, key: str) -> Declared:
        return self._entries[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def table(self) -> str:
        """The report's tolerance table: per declaration the paper's words, our rule and
        why. A rule and reason already given under an earlier name read "as <name>"."""
        lines = [self.heading, "", "| claim | paper says | rule | why |", "|---|---|---|---|"]
        seen: dict[tuple[str, str], str] = {}
        for k, d in self._entries.items():
            first = seen.setdefault((d.rule, d.why), k)
            rule, why = (d.rule, d.why) if first == k else (f"as “{first}”", "")
            lines.append("| " + " | ".join(cell(x) for x in (k, d.says, rule, why)) + " |")
        return "\n".join(lines)

    def audit(self, claims: Iterable[Claim]) -> None:
        """Raises UndeclaredClaim unless every claim was made from one of these
        declarations and every declaration with a test judged at least one claim."""
        claims = list(claims)
        ours = set(map(id, self._entries.values()))
        stray = [c.id for c in claims if c.declared is None or id(c.declared) not in ours]
        judged = {id(c.declared) for c in claims}
        unused = [k for k, d in self._entries.items() if d.test is not None and id(d) not in judged]
        if stray or unused:
            raise UndeclaredClaim(
                "; ".join(
                    x
                    for x in (
                        stray and f"claims not made from a declaration: {', '.join(stray)}",
                        unused and f"declared claims never judged: {', '.join(unused)}",
                    )
                    if x
                )
            )


def cell(text: str) -> str:
    """Text as one Markdown table cell: a literal "|" (as in |mean - 20|) would end it."""
    return " ".join(str(text).split()).replace("|", "\\|")


def fmt(v: Any) -> str:
    """A number as a report shows it: 4 significant digits, integral values as integers,
    no exponent between 1e-4 and 1e4 (above, whole numbers)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return str(v)
    x = float(v)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    if abs(x) >= 1e4:
        return f"{x:.0f}"
    if abs(x) < 1e-4:
        return f"{x:.3e}"
    return f"{x:.4g}"


def judge(ok: bool, *, value: str, needs: str, holds: str) -> tuple[bool, str]:
    """A verdict worded so that a failure reads as the condition that was not met:
    "14.85, needs ≤ 10" or, when it holds, "holds: 8.2 ≥ 5". For custom checks."""
    ok = bool(ok)
    if ok:
        return ok, f"holds: {holds}"
    return ok, f"{value}, needs {needs}" if value else f"needs {needs}"


def _pct(rel: float) -> str:
    return f"{100 * rel:g}%"


def within(target: float, rel: float | None = None, abs_: float | None = None):
    """Holds when |measured - target| ≤ rel·|target| (or ≤ abs_)."""
    if rel is None and abs_ is None:
        raise ValueError("within() needs rel or abs_")

    def check(v: float) -> tuple[bool, str]:
        tol = rel * abs(target) if rel is not None else abs_
        err = abs(float(v) - target)
        band = f"{fmt(target)} ± {_pct(rel) if rel is not None else fmt(abs_)}"
        return judge(
            err <= tol and math.isfinite(err),
            value=f"{fmt(v)} (off by {fmt(err)})",
            needs=f"{band} (off by at most {fmt(tol)})",
            holds=f"{fmt(v)} within {band} (off by {fmt(err)})",
        )

    return check


def at_least(bound: float):
    def check(v: float) -> tuple[bool, str]:
        return judge(
            float(v) >= bound,
            value=fmt(v),
            needs=f"≥ {fmt(bound)}",
            holds=f"{fmt(v)} ≥ {fmt(bound)}",
        )

    return check


def at_most(bound: float):
    def check(v: float) -> tuple[bool, str]:
        return judge(
            float(v) <= bound,
            value=fmt(v),
            needs=f"≤ {fmt(bound)}",
            holds=f"{fmt(v)} ≤ {fmt(bound)}",
        )

    return check


def less_than(a_label: str, a: float, b_label: str, b: float):
    """For claims comparing two measured values: holds when a < b."""

    def check(_: Any) -> tuple[bool, str]:
        return judge(
            a < b,
            value=f"{a_label} {fmt(a)} vs {b_label} {fmt(b)}",
            needs=f"{a_label} < {b_label}",
            holds=f"{a_label} {fmt(a)} < {b_label} {fmt(b)}",
        )

    return check


def increasing(values: list[float]):
    """For claims whose measured value is a sequence that must grow."""

    def check(_: Any) -> tuple[bool, str]:
        falls = [(a, b) for a, b in itertools.pairwise(values) if not b > a]
        shown = " < ".join(fmt(x) for x in values)
        return judge(
            not falls,
            value=", ".join(fmt(x) for x in values),
            needs="each above the previous"
            + (f" ({fmt(falls[0][0])} → {fmt(falls[0][1])} does not rise)" if falls else ""),
            holds=f"strictly increasing: {shown}",
        )

    return check
