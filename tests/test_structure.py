"""Structural rules of the code, kept by tests: no import circle among the Python
package's modules (function-level imports included, which hide a circle from Python itself;
the PSAND reproduction had one until it became a package), no function over 120 lines, no
`.expect("validated...")` in the engine, no circle between the engine's files, and no
machine path in the built engine."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "python" / "aqmlab"
ENGINE = ROOT / "crates" / "aqmlab-core" / "src"


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that a file imports, anywhere in it."""
    me = _module(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([base] if base else [])])
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        out |= {n for n in names if n in modules and n != me}
    return out


def test_no_import_circle_in_the_package():
    files = sorted(PKG.rglob("*.py"))
    modules = {_module(f) for f in files}
    graph = {_module(f): _imports(f, modules) for f in files}
    # A package imports its own modules through its __init__: only circles between
    # modules count, not a module and the package that contains it.
    for m in graph:
        graph[m] = {d for d in graph[m] if not m.startswith(d + ".")}
    state: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cycle = [*stack[stack.index(d) :], d] if d in stack else [m, d]
                raise AssertionError(f"import circle: {' -> '.join(cycle)}")
            if d not in state:
                visit(d, [*stack, d])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])


# Issue 47's bound: a function longer than this does several things and splits.
MAX_FUNCTION_LINES = 120


def test_no_function_over_120_lines():
    long = []
    for f in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{f.relative_to(ROOT)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, long


# Validation hands the builders checked values (`scenario::Checked`, fields parsed into their
# types), so a builder has nothing left to look up or parse: an `.expect("validated")` there
# is a check done twice, the second time as a panic.
EXPECT_VALIDATED = re.compile(r'expect\(\s*"validated', re.IGNORECASE)
INLINE_MOD = re.compile(r"(\s*)(?:pub(?:\([\w:]+\))? )?mod \w+ \{")


def _declared(f: Path, only_test: bool) -> set[Path]:
    """The files of the modules `f` declares (`mod x;`, `#[path]` honoured): those under
    `#[cfg(test)]` only, or all of them."""
    here = f.parent if f.name in ("lib.rs", "mod.rs") else f.parent / f.stem
    out, test, path = set(), False, None
    for line in f.read_text("utf-8").splitlines():
        s = line.strip()
        if s == "#[cfg(test)]":
            test = True
        elif m := re.fullmatch(r'#\[path = "(.+)"\]', s):
            path = f.parent / m.group(1)
        elif (test or not only_test) and (
            m := re.fullmatch(r"(?:pub(?:\([\w:]+\))? )?mod (\w+);", s)
        ):
            out.add(path or here / f"{m.group(1)}.rs")
        if not s.startswith("#["):
            test, path = False, None
    return out


def _test_files() -> set[Path]:
    """The engine's files of modules declared under `#[cfg(test)]` (`mod tests;`), and of
    the modules those declare in turn (a test module's children are tests too)."""
    out = set().union(*(_declared(f, True) for f in ENGINE.rglob("*.rs")))
    todo = list(out)
    while todo:
        for child in _declared(todo.pop(), False) - out:
            out.add(child)
            todo.append(child)
    return out


def _non_test_text(f: Path) -> str:
    """The file with its inline `#[cfg(test)]` modules blanked, line numbers kept (rustfmt
    closes a module with a `}` at the indentation of its `mod` line)."""
    out, test, close = [], False, None
    for line in f.read_text("utf-8").splitlines():
        if close is not None:
            close = None if line == close else close
            line = ""
        elif test and (m := INLINE_MOD.fullmatch(line)):
            close, line = m.group(1) + "}", ""
        s = line.strip()
        test = s == "#[cfg(test)]" or (test and s.startswith("#["))
        out.append(line)
    return "\n".join(out)


def test_no_expect_after_validation_in_the_engine():
    skip = _test_files()
    assert skip, "found no test module files: the scan is broken"
    found = []
    for f in sorted(ENGINE.rglob("*.rs")):
        if f in skip:
            continue
        text = _non_test_text(f)
        for m in EXPECT_VALIDATED.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{f.relative_to(ROOT)}:{line}")
    assert not found, "\n".join(found)


RUST_PATH = re.compile(r"\b(crate|super|self)((?:::\w+)+)(?:::\{([^}]*)\})?")
PATH_MOD = re.compile(r'#\[path = "([^"]+)"\]\s*(?:pub(?:\([\w:]+\))? )?mod (\w+);')


def _engine_modules() -> dict[tuple[str, ...], Path]:
    """Each engine file by its module path (`("tcp", "sender")`), `#[path]` files by the
    module they are declared as; test modules left out."""

    def path_of(f: Path) -> tuple[str, ...]:
        parts = f.relative_to(ENGINE).with_suffix("").parts
        return parts[:-1] if parts[-1] in ("mod", "lib") else parts

    skip = _test_files()
    mods = {path_of(f): f for f in ENGINE.rglob("*.rs") if f not in skip}
    for m, f in list(mods.items()):
        for target, name in PATH_MOD.findall(_non_test_text(f)):
            t = (f.parent / target).resolve()
            mods = {k: v for k, v in mods.items() if v.resolve() != t}
            mods[(*m, name)] = t
    return mods


def _engine_edges(mods: dict[tuple[str, ...], Path]) -> dict[tuple[str, ...], set]:
    """The files each file names by a `crate::`, `super::` or `self::` path (a `use` or an
    inline path; a group `a::{b, c::d}` names each), resolved to the deepest module that is
    a file. A path to one of its own ancestors is not an edge: a child module is part of
    its parent (`use super::*`)."""

    def resolve(segs: list[str]) -> tuple[str, ...]:
        for n in range(len(segs), 0, -1):
            if tuple(segs[:n]) in mods:
                return tuple(segs[:n])
        return ()

    edges: dict[tuple[str, ...], set] = {m: set() for m in mods}
    for m, f in mods.items():
        text = re.sub(r"//[^\n]*", "", _non_test_text(f))
        for head, rest, group in RUST_PATH.findall(text):
            base = {"crate": [], "super": list(m[:-1]), "self": list(m)}[head]
            segs = [x for x in rest.split("::") if x]
            while segs and segs[0] == "super":
                base, segs = base[:-1], segs[1:]
            tails = [
                [x for x in t.strip().split("::") if x not in ("", "self")]
                for t in (group.split(",") if group else [""])
            ]
            for t in tails:
                to = resolve(base + segs + t)
                if to and to != m and m[: len(to)] != to:
                    edges[m].add(to)
    return edges


def test_no_circle_between_the_engines_files():
    """No two engine files name each other, directly or through others (a child naming
    its parent aside): what one file needs of another's comes from a module both name,
    as the conditioners' scenario checks moved to scenario/conditioners.rs and the
    controllers' view of the sender to `congestion::SenderSide`."""
    mods = _engine_modules()
    assert ("tcp", "sender", "prr") in mods and ("scenario",) in mods, "the scan is broken"
    edges = _engine_edges(mods)
    assert ("scenario",) in edges[("sim",)], "the scan finds no edge it should"
    index: dict = {}
    low: dict = {}
    stack: list = []
    circles = []

    def visit(v) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while (w := stack.pop()) != v:
                comp.append(w)
            if comp:
                circles.append(sorted(str(mods[x].relative_to(ENGINE)) for x in [v, *comp]))

    for v in sorted(mods):
        if v not in index:
            visit(v)
    assert not circles, f"files that name each other: {circles}"


def test_the_built_engine_names_no_machine_path():
    """`make develop` remaps the checkout and Cargo's home (Rust and the C of mimalloc):
    the module a user imports carries no path of the machine it was built on."""
    import os

    import aqmlab._core as core

    data = Path(core.__file__).read_bytes()
    cargo = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    found = [str(p) for p in (ROOT, cargo, "../shared") if str(p).encode() in data]
    assert not found, f"{core.__file__} names {found}: build it with `make develop`"


MAX_FILE_LINES = 900


def test_no_source_file_over_900_lines():
    """The project's bound on a source file (Rust and Python, tests included): a file
    that outgrows it is split by topic, as tests/tcp_validation/ was."""
    dirs = [ROOT / "crates", ROOT / "python", ROOT / "tests", ROOT / "benchmarks"]
    long = [
        f"{p.relative_to(ROOT)}: {n}"
        for d in dirs
        for p in sorted(d.rglob("*"))
        if p.suffix in (".rs", ".py")
        and "target" not in p.parts
        and (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES
    ]
    assert not long, long
