"""The installable wheel (docs/install.md): `make wheel` builds it, and it installs and runs
in a fresh virtual environment outside the checkout, with its dependencies from PyPI.

The build reuses the release build of `make develop` (same flags, same Cargo target
directory), so it only packs the wheel: seconds. The fresh environment's `pip install` takes
most of the test's time (about 40 s with pip's cache warm, on the 2-core machine of
BENCHMARKS.md); the whole test about a minute, so it stays in the default run. It skips,
saying why, without maturin or make, or when pip cannot reach the package index.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

import aqmlab

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "aqmlab"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))

# What pip prints when it cannot reach the index (no network, no DNS, a proxy refusing):
# the test then skips instead of failing.
OFFLINE = (
    "NewConnectionError",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Failed to establish a new connection",
    "ProxyError",
    "ConnectTimeoutError",
    "Max retries exceeded",
    "No matching distribution found",
)


def _pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "requirements-dev.txt").read_text("utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = Version(version.strip())
    return pins


def test_every_dependency_range_admits_the_version_ci_pins():
    """pyproject.toml's ranges (what a wheel user gets) and requirements-dev.txt's pins
    (what CI tests) must agree, or CI would test versions a user cannot install."""
    pins = _pins()
    reqs = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    for extra in PYPROJECT["project"]["optional-dependencies"].values():
        reqs += [Requirement(r) for r in extra]
    assert len(reqs) >= 8
    for req in reqs:
        name = req.name.lower()
        assert name in pins, f"{req}: requirements-dev.txt pins no version of {req.name}"
        assert req.specifier.contains(pins[name]), (
            f"{req}: requirements-dev.txt pins {name}=={pins[name]}, outside the range"
        )
    build = Requirement(PYPROJECT["build-system"]["requires"][0])
    assert build.specifier.contains(pins["maturin"]), f"{build} against maturin=={pins['maturin']}"


def _tool(name: str) -> str | None:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else shutil.which(name)


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float):
    return subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def _build(out: Path) -> Path:
    maturin, make = _tool("maturin"), shutil.which("make")
    if maturin is None or make is None:
        pytest.skip("the wheel test needs maturin (requirements-dev.txt) and make")
    # The virtual environment running this test is the one `make wheel` uses ($(BIN)/maturin).
    cmd = [make, "-s", "-C", str(ROOT), "wheel", f"WHEEL_DIR={out}", f"VENV={sys.prefix}"]
    p = _run(cmd, ROOT, dict(os.environ), timeout=1800)
    assert p.returncode == 0, f"make wheel failed:\n{p.stdout}\n{p.stderr}"
    wheels = list(out.glob("aqmlab-*.whl"))
    assert len(wheels) == 1, f"make wheel wrote {wheels}"
    return wheels[0]


def _check_contents(wheel: Path) -> None:
    version = PYPROJECT["project"]["version"]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        # Every file of the package the checkout has (sources, stubs, package data).
        wanted = {
            f"aqmlab/{p.relative_to(PACKAGE).as_posix()}"
            for p in PACKAGE.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".so", ".pyc")
        }
        assert {"aqmlab/example.toml", "aqmlab/py.typed", "aqmlab/_core.pyi"} <= wanted
        assert not wanted - names, f"missing from the wheel: {sorted(wanted - names)}"
        cores = [n for n in names if re.fullmatch(r"aqmlab/_core\.[a-z0-9_.-]*so", n)]
        assert len(cores) == 1, f"the engine module in the wheel: {cores}"
        info = f"aqmlab-{version}.dist-info"
        for lic in ("LICENSE-MIT", "LICENSE-APACHE"):
            assert f"{info}/licenses/{lic}" in names
        meta = Parser().parsestr(z.read(f"{info}/METADATA").decode("utf-8"))
        module = z.read(cores[0])
    assert meta["Name"] == "aqmlab" and meta["Version"] == version == aqmlab.__version__
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["License-Expression"] == "MIT OR Apache-2.0"
    assert meta["Summary"] and meta.get_payload().startswith("# aqmlab")
    assert "Topic :: System :: Networking" in meta.get_all("Classifier")
    assert len(meta.get_all("Requires-Dist")) == len(PYPROJECT["project"]["dependencies"]) + 1
    # The module names no machine path: `make wheel` remaps the checkout and Cargo's home.
    cargo_home = os.environ.get("CARGO_HOME", str(Path.home() / ".cargo"))
    for path in (str(ROOT), cargo_home):
        assert path.encode() not in module, f"the built module names {path}"


def test_the_wheel_installs_in_a_fresh_venv_and_reproduces_mm1k(tmp_path):
    assert not tmp_path.resolve().is_relative_to(ROOT), "the test must run outside the checkout"
    wheel = _build(tmp_path / "dist")
    _check_contents(wheel)

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv = tmp_path / "venv"
    p = _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env, timeout=300)
    assert p.returncode == 0, p.stderr
    py = venv / "bin" / "python"
    p = _run(
        [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        tmp_path,
        env,
        timeout=1800,
    )
    if p.returncode != 0 and any(m in p.stdout + p.stderr for m in OFFLINE):
        pytest.skip(f"pip could not reach the package index: {p.stderr.strip()[-300:]}")
    assert p.returncode == 0, f"pip install of the wheel failed:\n{p.stdout}\n{p.stderr}"

    work = tmp_path / "work"
    work.mkdir()
    p = _run(
        [str(py), "-c", "import aqmlab; print(aqmlab.__version__); print(aqmlab.__file__)"],
        work,
        env,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    version, where = p.stdout.split()
    assert version == aqmlab.__version__ == PYPROJECT["project"]["version"]
    assert Path(where).is_relative_to(venv), f"imported {where}, not the installed wheel"

    # Package data at run time: the example scenario the CLI writes, validated.
    p = _run([str(venv / "bin" / "aqmlab"), "example", "--out", "ex.toml"], work, env, 120)
    assert p.returncode == 0 and (work / "ex.toml").read_text("utf-8").startswith("#"), p.stderr
    p = _run([str(venv / "bin" / "aqmlab"), "validate", "ex.toml"], work, env, 120)
    assert p.returncode == 0, p.stdout + p.stderr

    aqm = [str(venv / "bin" / "aqmlab"), "reproduce", "mm1k", "--quick", "--out", "out"]
    p = _run(aqm, work, env, timeout=900)
    assert p.returncode == 0, f"aqmlab reproduce mm1k --quick:\n{p.stdout}\n{p.stderr}"
    report = work / "out" / "mm1k"
    for name in ("report.md", "report.html", "mm1k_L.png", "quick.db"):
        assert (report / name).stat().st_size > 0, f"{name} missing from {report}"
    # Every claim holds, as in the checkout (tests/test_reproduce.py): "N of N claims hold".
    m = re.search(r"(\d+) of (\d+) claims hold", p.stdout + p.stderr)
    assert m and m.group(1) == m.group(2) and int(m.group(1)) >= 1, p.stdout + p.stderr
    assert "M/M/1/K" in (report / "report.md").read_text("utf-8")
