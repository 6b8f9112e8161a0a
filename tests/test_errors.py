"""Invalid input: named exceptions with the field path, value and what is allowed; a Rust
panic surfaces as an exception; bad input writes nothing. The full table of invalid cases
(40+) is in crates/aqmlab-core/tests/invalid_scenarios.rs; these check the Python side."""

import copy
from pathlib import Path

import pytest

import aqmlab
from aqmlab import _core
from aqmlab import scenario as sc
from aqmlab.cli import main


def broken(edit):
    s = sc.example(duration="2s", warmup="0s")
    edit(s)
    return s


CASES = [
    (
        lambda s: s["links"][3]["queue"].update(limit_pkts=0),
        "links[3].queue.limit_pkts",
        "0",
        "must be at least 1",
    ),
    (
        lambda s: s["links"][3].update(bandwidth="0Mbps"),
        "links[3].bandwidth",
        '"0bps"',
        "must be > 0",
    ),
    (
        lambda s: s["links"][0].update(loss=sc.bernoulli(float("nan"))),
        "links[0].loss.p",
        "NaN",
        "probability",
    ),
    (
        lambda s: s["links"][0].update(loss=sc.bernoulli(float("inf"))),
        "links[0].loss.p",
        "inf",
        "probability",
    ),
    (
        lambda s: s["links"][0].update(loss=sc.bernoulli(-0.1)),
        "links[0].loss.p",
        "-0.1",
        "probability",
    ),
    (
        lambda s: s["simulation"].update(warmup="5s"),
        "simulation.warmup",
        '"5s"',
        "must be < simulation.duration",
    ),
    (
        lambda s: s["flows"][0].update(start="1s", stop="500ms"),
        "flows[0].stop",
        '"500ms"',
        "must be > start",
    ),
    (
        lambda s: s["flows"][1].update(dst="nowhere"),
        "flows[1].dst",
        '"nowhere"',
        "no node has this name",
    ),
    (
        lambda s: s["links"][3].update(colour="blue"),
        "links[3].colour",
        "",
        "unknown field `colour`",
    ),
    (
        lambda s: s["links"][3]["queue"]["aqm"].update(max_th=3),
        "links[3].queue.aqm.max_th",
        "",
        "unknown field `max_th`",
    ),
    (lambda s: s["links"][3].update(delay=20), "links[3].delay", "", "bare number"),
    (
        lambda s: s["flows"][2].update(shape=0.5),
        "flows[2].shape",
        "0.5",
        "must be a finite number > 1",
    ),
]


@pytest.mark.parametrize(("edit", "path", "value", "fragment"), CASES)
def test_invalid_dict_reports_path_value_and_rule(edit, path, value, fragment):
    with pytest.raises(aqmlab.ScenarioError) as ei:
        aqmlab.run(broken(edit))
    e = ei.value
    assert e.path == path
    assert fragment in e.message
    if value:
        assert e.value == value
    assert isinstance(e, ValueError)
    assert e.errors[0] == (e.path, e.value, e.message)


def test_every_problem_is_reported_at_once():
    def edit(s):
        s["links"][3]["queue"]["limit_pkts"] = 0
        s["flows"][0]["dst"] = "ghost"

    with pytest.raises(aqmlab.ScenarioError) as ei:
        aqmlab.validate(broken(edit))
    paths = [p for p, _, _ in ei.value.errors]
    assert paths == ["links[3].queue.limit_pkts", "flows[0].dst"]
    assert "2 problems" in str(ei.value)


def test_unsupported_python_values_are_rejected_with_their_path():
    s = sc.example()
    s["flows"][0]["rate"] = {1, 2}
    with pytest.raises(aqmlab.ScenarioError) as ei:
        aqmlab.run(s)
    assert ei.value.path == "flows[0].rate"
    assert "unsupported type set" in ei.value.message


def test_validation_does_not_mutate_the_caller_scenario():
    s = sc.example()
    before = copy.deepcopy(s)
    aqmlab.canonical(s)
    aqmlab.run(sc.example(duration="1s", warmup="0s"))
    assert s == before


def test_rust_panic_becomes_a_python_exception_not_a_crash():
    with pytest.raises(aqmlab.InternalError, match="deliberate panic"):
        _core._panic_for_test()
    assert issubclass(aqmlab.InternalError, Exception)
    # The interpreter and the engine still work afterwards.
    assert aqmlab.run(sc.example(duration="1s", warmup="0s")).events > 0


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="scenario file not found"):
        aqmlab.run(tmp_path / "nope.toml")


def test_cli_rejects_invalid_scenario_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    s = sc.example(duration="2s", warmup="0s")
    s["links"][3]["queue"]["limit_pkts"] = 0
    bad.write_text(sc.to_toml(s))
    out = tmp_path / "out"
    assert main(["run", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "links[3].queue.limit_pkts = 0: must be at least 1" in err
    assert not out.exists()
    assert main(["validate", str(bad)]) == 2


def test_cli_reports_toml_syntax_errors(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("schema_version = = 1\n")
    assert main(["validate", str(bad)]) == 2
    assert "syntax" in capsys.readouterr().err.lower()


# Issue 9, item 5: error paths of the command line.


def _cli(*args: str, cwd=None):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_a_mistyped_reproduction_name_is_one_line_with_a_suggestion():
    done = _cli("reproduce", "remm")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: unknown reproduction 'remm'; did you mean 'rem'? "
        "(registered: bio, cioq, l4s, mm1k, psand, rem, tcp_dumbbell, urio)"
    )


def test_run_validate_load_and_sweep_report_a_toml_syntax_error_identically(tmp_path):
    import aqmlab

    bad = tmp_path / "bad.toml"
    bad.write_text('schema_version = 1\n[simulation]\nduration = "1s"\nx = [1,\n', "utf-8")
    expected = f"{bad}: TOML syntax error: Invalid value (at end of document)"
    for args in (["run", str(bad), "--out", str(tmp_path / "o")], ["validate", str(bad)]):
        done = _cli(*args)
        assert done.returncode == 2 and done.stderr.strip() == f"error: {expected}", done.stderr
    for call in (aqmlab.scenario.load, aqmlab.run, aqmlab.validate):
        with pytest.raises(aqmlab.scenario.ScenarioFileError) as e:
            call(bad)
        assert str(e.value) == expected
    sw = tmp_path / "sw.toml"
    sw.write_text("[sweep]\nruns = \n", "utf-8")
    done = _cli("sweep", str(sw), cwd=tmp_path)
    assert not (tmp_path / "results").exists()
    assert done.returncode == 2 and done.stderr.strip().startswith(
        f"error: {sw}: TOML syntax error: Invalid value (at line 2, column 8)"
    ), done.stderr


def test_a_binary_file_is_named_and_not_decoded(tmp_path):
    garbage = tmp_path / "garbage.toml"
    garbage.write_bytes(b"schema_version = 1\n\xff\xfe\x00binary")
    for args in (["run", str(garbage), "--out", str(tmp_path / "o")], ["validate", str(garbage)]):
        done = _cli(*args)
        assert done.returncode == 2
        assert done.stderr.strip() == (
            f"error: {garbage} is not a text file (not valid UTF-8 at byte 19)"
        ), done.stderr


def test_validate_canonical_writes_only_toml_to_stdout_and_run_names_what_it_wrote(tmp_path):
    import tomllib

    scen = Path(__file__).resolve().parent.parent / "scenarios" / "example.toml"
    done = _cli("validate", str(scen), "--canonical")
    assert done.returncode == 0
    assert tomllib.loads(done.stdout)["schema_version"] == 1  # `> c.toml` is valid TOML
    assert done.stderr.startswith(f"{scen}: valid (8 nodes")
    done = _cli("run", str(scen), "--out", str(tmp_path / "r"), "--no-plot", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("(summary.json, scenario.toml, tables)")
    # No flow is traced in the example: no empty flow_timeseries table is written.
    assert not (tmp_path / "r" / "flow_timeseries.csv").exists()
    assert (tmp_path / "r" / "queues.csv").is_file()


def test_aqmlab_example_writes_the_commented_file_that_is_example(tmp_path):
    import tomllib

    root = Path(__file__).resolve().parent.parent
    shipped = (root / "python" / "aqmlab" / "example.toml").read_text("utf-8")
    assert shipped == (root / "scenarios" / "example.toml").read_text("utf-8")
    done = _cli("example", "--out", str(tmp_path / "my.toml"))
    assert done.returncode == 0
    text = (tmp_path / "my.toml").read_text("utf-8")
    assert text == shipped and text.startswith("# The built-in example network")
    assert tomllib.loads(_core.canonical(text)) == tomllib.loads(
        _core.canonical(sc.as_toml(sc.example()))
    )
