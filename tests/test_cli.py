"""CLI conventions: every user error exits 2 with exactly one ``helmlite: error: …`` line on stderr,
bugs keep their traceback, ``--version`` and ``python -m helmlite`` work."""
from __future__ import annotations

import subprocess
import sys

import pytest

import helmlite
from helmlite import cli

from .conftest import REPO


def one_error_line(capsys) -> str:
    """The single stderr line of a failed command (asserting there is exactly one), without its prefix."""
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and captured.err.endswith("\n"), captured.err
    assert lines[0].startswith("helmlite: error: ")
    return lines[0].removeprefix("helmlite: error: ")


def spec_file(tmp_path, text):
    path = tmp_path / "spec.yaml"
    path.write_text(text)
    return str(path)


CASES = [
    ("missing --spec file", lambda t: ["run", "--spec", str(t / "absent.yaml")],
     "--spec {t}/absent.yaml: cannot read the run spec file (No such file or directory)"),
    ("--spec names a folder", lambda t: ["run", "--spec", str(t)], "--spec {t}: cannot read the run spec file (Is a directory)"),
    ("malformed --spec YAML", lambda t: ["run", "--spec", spec_file(t, "scenario: [mmlu\nmodel: x\n")],
     "--spec {t}/spec.yaml: not valid YAML (expected ',' or ']', but got ':' at line 2, column 6)"),
    ("--spec that is not a mapping", lambda t: ["run", "--spec", spec_file(t, "just text\n")], "run spec: expected a mapping"),
    ("missing notebook for html", lambda t: ["html", str(t / "absent.ipynb"), str(t / "out.html")],
     "html: notebook " + "{t}/absent.ipynb not found"),
    ("fetch without names", lambda t: ["fetch"], "fetch: name files to fetch"),
    ("models prepare without names", lambda t: ["models", "prepare"], "models prepare: name a model"),
    ("run without a spec", lambda t: ["run", "--scenario", "mmlu"], "run: give --spec FILE, --spec-json JSON, or --scenario and --model"),
    ("--arg without =", lambda t: ["run", "--scenario", "mmlu", "--model", "w", "--arg", "subject"],
     "run: --arg expects key=value, got 'subject'"),
    ("no subcommand", lambda t: [], "the following arguments are required: command (see `helmlite --help`)"),
    ("unknown subcommand", lambda t: ["fetchh"], "argument command: invalid choice: 'fetchh'"),
    ("bad option value", lambda t: ["run", "--max-instances", "many"],
     "run: argument --max-instances: expected a whole number >= 1, got 'many' (see `helmlite run --help`)"),
    ("unknown data file (a KeyError: no quotes)", lambda t: ["fetch", "helmet/agg_results.csv"],
     "unknown data file 'helmet/agg_results.csv'"),
    ("missing config file", lambda t: ["config", str(t / "absent.yaml")], "{t}/absent.yaml: config file not found"),
]


@pytest.mark.parametrize("case,argv,message", CASES, ids=[c[0] for c in CASES])
def test_user_errors_exit_2_with_one_line(tmp_path, capsys, cache, case, argv, message):
    assert cli.main(argv(tmp_path)) == 2
    assert one_error_line(capsys).startswith(message.format(t=tmp_path))


def test_a_multi_line_message_is_printed_on_one_line(tmp_path, capsys):
    """The message of a config that is not YAML quotes the parser's several lines; the CLI joins them."""
    path = tmp_path / "bad.yaml"
    path.write_text("analyses: [helmet\n")
    assert cli.main(["config", str(path)]) == 2
    assert one_error_line(capsys).startswith(f"{path}: not valid YAML (while parsing a flow sequence in")


def test_a_bug_keeps_its_traceback(monkeypatch):
    """Only HelmliteError is reported in one line; any other exception is a bug and propagates."""
    def broken(args):
        raise ValueError("a bug")

    monkeypatch.setattr(cli.config, "check", broken)
    with pytest.raises(ValueError, match="a bug"):
        cli.main(["config", "x.yaml"])


def test_valid_config_exits_0(capsys):
    assert cli.main(["config", str(REPO / "config" / "test.yaml")]) == 0
    assert ": valid; analyses: " in capsys.readouterr().out


def test_python_dash_m_helmlite(tmp_path):
    """``python -m helmlite`` is the command: --version prints the package version, errors exit 2."""
    run = lambda *argv: subprocess.run([sys.executable, "-m", "helmlite", *argv], cwd=tmp_path,  # noqa: E731
                                       capture_output=True, text=True, timeout=120)
    version = run("--version")
    assert (version.returncode, version.stdout, version.stderr) == (0, f"helmlite {helmlite.__version__}\n", "")
    failed = run("config", "absent.yaml")
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr == "helmlite: error: absent.yaml: config file not found\n"


LONG_TABLE = """model,scenario,metric,score,lower_is_better
a,S1,EM,90,false
b,S1,EM,50,false
c,S1,EM,70,false
a,S2,EM,80,false
b,S2,EM,60,false
c,S2,EM,20,false
"""


def test_leaderboard_winrates_on_an_unseen_long_table(tmp_path, capsys):
    """A long table in percent: win rates hand-derived (a beats both in S1 and S2 → 1; b: S1 0/2, S2 1/2 → 0.25; c: S1 1/2, S2 0/2 → 0.25)."""
    path = tmp_path / "board.csv"
    path.write_text(LONG_TABLE)
    assert cli.main(["leaderboard", "winrates", "--table", str(path), "--tie-rule", "half", "--n-resamples", "200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split(",")[:5] == ["model", "mean_win_rate", "ci_low", "ci_high", "scenarios"]
    rates = {line.split(",")[0]: (float(line.split(",")[1]), int(line.split(",")[4])) for line in lines[1:]}
    assert rates == {"a": (1.0, 2), "b": (0.25, 2), "c": (0.25, 2)}


def test_leaderboard_winrates_rejects_a_malformed_table(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("x,y\n1,2\n")
    assert cli.main(["leaderboard", "winrates", "--table", str(path)]) == 2
    assert "found columns ['x', 'y']; expected" in one_error_line(capsys)
