"""report.html is report.md rendered: every Markdown table becomes an HTML table with the
same rows and columns, and no table survives as a paragraph of "| ... |" text."""

import re
from html.parser import HTMLParser

import pytest

from aqmlab.reproduce import (
    Context,
    Declarations,
    Declared,
    Experiment,
    at_least,
    at_most,
    reproduce,
    write_report,
)


def markdown_tables(md: str) -> list[list[list[str]]]:
    """Every pipe table of a Markdown text: rows (the delimiter row left out) of cells."""
    tables, block = [], []
    for line in [*md.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if len(block) >= 2 and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", block[1]):
            rows = [block[0], *block[2:]]
            # A cell ends at a "|" that is not escaped as "\|".
            tables.append([[c.strip() for c in re.split(r"(?<!\\)\|", r)[1:-1]] for r in rows])
        block = []
    return tables


class _Tables(HTMLParser):
    """Tables (rows of cell texts), the verdict cells' classes, and paragraph texts."""

    def __init__(self):
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.paragraphs: list[str] = []
        self.cell_classes: list[tuple[str | None, str]] = []
        self._cell: list[str] | None = None
        self._cls: str | None = None
        self._p: list[str] | None = None

    def _end_cell(self):
        # HTML lets </td> be omitted: a new cell, row or the table's end closes one too.
        if self._cell is not None:
            text = "".join(self._cell).strip()
            self.tables[-1][-1].append(text)
            self.cell_classes.append((self._cls, text))
            self._cell = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._end_cell()
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._end_cell()
            self._cell, self._cls = [], dict(attrs).get("class")
        elif tag == "p":
            self._p = []

    def handle_endtag(self, tag):
        if tag in ("td", "th", "tr", "table"):
            self._end_cell()
        elif tag == "p" and self._p is not None:
            self.paragraphs.append("".join(self._p))
            self._p = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._p is not None:
            self._p.append(data)


def parse_html(text: str) -> _Tables:
    p = _Tables()
    p.feed(text)
    p.close()
    return p


def assert_tables_rendered(md: str, page: str) -> int:
    """Every Markdown table of md is a <table> of the HTML page, in order, with the same
    rows and columns; no paragraph holds table syntax. Returns the number of tables."""
    want = markdown_tables(md)
    got = parse_html(page)
    assert [(len(t), {len(r) for r in t}) for t in got.tables] == [
        (len(t), {len(r) for r in t}) for t in want
    ]
    for p in got.paragraphs:
        assert "|---|" not in p and not p.lstrip().startswith("|"), p
    return len(want)


def test_notes_tables_and_a_cell_with_a_pipe_become_html_tables(tmp_path):
    ctx = Context(out=tmp_path, quick=True, workers=1, progress=False)
    ctx.notes.append("Per period:\n\n| scheme | users | goodput |\n|---|---|---|\n| A | 20 | 0.8 |")
    ctx.notes.append("A plain note with a [bracket] and P(25<X≤35).")
    d = Declarations(
        "Tolerances:",
        {
            "near": Declared(
                "within ±10 of 20", "|mean - 20| ≤ 10", "a test", lambda: at_most(10.0)
            ),
            "ok": Declared("x ≥ 3", "≥ 3", "a test", lambda: at_least(3.0), "100 replications"),
        },
    )
    claims = [
        d["near"].claim("near b*", 14.85, unit="(largest |mean - 20|)"),
        d["ok"].claim("ok", 4.0),
    ]
    exp = Experiment("t", "T", 'A. Author, "Title", Venue, 2001', run=lambda c: claims, declared=d)
    md = write_report(exp, ctx, claims, 0.0).read_text()
    page = (tmp_path / "report.html").read_text()
    assert assert_tables_rendered(md, page) == 3
    h = parse_html(page)
    assert h.tables[0][0] == ["claim", "paper says", "we measured", "holds?", "how judged"]
    assert h.tables[0][1][2] == "14.85 (largest |mean - 20|)"
    # The tolerance table, from the declarations; the pipe in a rule stays in its cell.
    assert h.tables[1][0] == ["claim", "paper says", "rule", "why"]
    assert h.tables[1][1][2] == "|mean - 20| ≤ 10"
    assert h.tables[2] == [["scheme", "users", "goodput"], ["A", "20", "0.8"]]
    assert ("no", "no") in h.cell_classes
    assert ("defer", "needs full size") in h.cell_classes
    assert "A plain note with a [bracket] and P(25<X≤35)." in h.paragraphs
    assert "<style>" in page and "border-collapse" in page


@pytest.mark.parametrize(("name", "n_tables"), [("rem", 5), ("psand", 9)])
def test_the_rem_and_psand_reports_render_every_table_as_a_table(tmp_path, name, n_tables):
    done = reproduce(name, quick=True, out=tmp_path, workers=None, progress=False)
    md = done[name][2].read_text()
    page = (tmp_path / name / "report.html").read_text()
    assert assert_tables_rendered(md, page) == n_tables
    h = parse_html(page)
    # The claims table: a header and one row per claim, five columns each.
    assert len(h.tables[0]) == 1 + done[name][1]
    assert {len(r) for r in h.tables[0]} == {5}
    for fig in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md):
        assert f'src="{fig}"' in page
