"""Every script of examples/ and its notebook run as a new user would run them, and the
README there describes each one.

Each script runs in its own Python process from an empty temporary directory (so that it
writes nothing into the checkout and needs no file of it: what a user of the installed
wheel has), and must exit 0; the scripts assert their own results where a reader relies on
one (RED and CoDel keep a shorter queue than DropTail, a resumed sweep computes nothing).
The notebook is executed with nbclient in a Jupyter kernel of this Python, cell by cell;
a cell that raises fails the test. The committed notebook has its outputs cleared.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))

# What each script leaves in its working directory (beyond printing its tables).
WRITES = {
    "01_run_toml.py": ["first.toml", "results/first/summary.json", "results/first/queues.csv"],
    "02_compare_aqms.py": [],
    "03_sweep_sqlite.py": ["buffer.db"],
    "04_diffserv_rio.py": [],
    "05_plot_queue.py": ["queue.png", "queue_all.png"],
    "06_dataframes.py": ["results/run/queues.parquet"],
}


def test_the_examples_are_the_listed_ones_and_the_readme_describes_each():
    assert [p.name for p in SCRIPTS] == sorted(WRITES)
    assert len(NOTEBOOKS) == 1
    readme = (EXAMPLES / "README.md").read_text("utf-8")
    for p in [*SCRIPTS, *NOTEBOOKS]:
        assert f"`{p.name}`" in readme, f"examples/README.md does not describe {p.name}"
    assert "examples/README.md" in (ROOT / "README.md").read_text("utf-8")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_script_runs_from_an_empty_directory(script, tmp_path):
    before = sorted(p.name for p in EXAMPLES.iterdir())
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    p = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert p.returncode == 0, f"{script.name} failed:\n{p.stdout}\n{p.stderr}"
    assert p.stdout.strip(), f"{script.name} printed nothing"
    for name in WRITES[script.name]:
        assert (tmp_path / name).stat().st_size > 0, f"{script.name} did not write {name}"
    assert sorted(p.name for p in EXAMPLES.iterdir()) == before, "it wrote into examples/"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_without_outputs_and_runs(notebook, tmp_path):
    nbformat = pytest.importorskip("nbformat", reason="nbformat (requirements-dev.txt)")
    nbclient = pytest.importorskip("nbclient", reason="nbclient (requirements-dev.txt)")
    pytest.importorskip("ipykernel", reason="ipykernel (requirements-dev.txt)")
    nb = nbformat.read(notebook, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "the notebook has no code"
    for c in code:
        assert c.outputs == [] and c.execution_count is None, "clear the notebook's outputs"
    # The kernel runs this Python (jupyter_client maps the spec's "python" to sys.executable)
    # in the temporary directory; a cell that raises stops it with CellExecutionError.
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2, "the notebook's two figures were not drawn"
