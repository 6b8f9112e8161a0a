"""Start-up: `aqmlab --help` and `aqmlab validate` load no heavy library.

pandas alone takes ~0.2 s to import (0.4 s on a cold cache), matplotlib and dask more; every
command paid them while the package imported them eagerly. Only the commands that build
DataFrames, write Parquet or plot load them now, on first use. Timing is measured, not
asserted (machines drift; benchmarks/startup.py prints min, median and max);
what is asserted is the cause, the modules a command leaves loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

EXAMPLE = str(ROOT / "scenarios" / "example.toml")

HEAVY = ("pandas", "numpy", "matplotlib", "dask", "distributed", "scipy", "pyarrow", "rich")

# Runs one CLI command in a fresh interpreter and prints which heavy modules it loaded.
PROBE = """
import contextlib, io, json, sys
from aqmlab.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        rc = main(sys.argv[1:])
    except SystemExit as e:  # argparse's --help
        rc = e.code
heavy = %r
print(json.dumps({"rc": rc, "loaded": sorted(m for m in heavy if m in sys.modules)}))
"""


def _loaded(*argv: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE % (HEAVY,), *argv],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_aqmlab_loads_no_heavy_library():
    code = f"import sys, aqmlab; print([m for m in {HEAVY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["validate", EXAMPLE], ["validate", "--canonical", EXAMPLE]],
    ids=["help", "validate", "validate-canonical"],
)
def test_light_commands_load_no_heavy_library(argv):
    got = _loaded(*argv)
    assert got == {"rc": 0, "loaded": []}


def test_the_lazy_imports_still_work_where_used(tmp_path):
    """The probe can see a loaded module: `run` writes tables (pandas) and its plot
    (matplotlib), so both are loaded after it, which also shows the functions that import
    them on first use do so."""
    got = _loaded("run", EXAMPLE, "--out", str(tmp_path / "o"))
    assert got["rc"] == 0
    assert {"pandas", "matplotlib", "numpy"} <= set(got["loaded"])
    assert (tmp_path / "o" / "queue_length.png").exists()


def test_sweep_is_the_function_after_the_submodule_is_imported():
    """`aqmlab.sweep` is a function and the name of a submodule; importing the submodule
    (as the CLI does) must not replace the function in the package."""
    code = (
        "import importlib, aqmlab; importlib.import_module('aqmlab.sweep');"
        "from aqmlab.sweep import sweep_file; print(callable(aqmlab.sweep) and "
        "aqmlab.sweep.__name__ == 'sweep')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
