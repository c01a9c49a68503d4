"""The commands of README.md and of the documentation's tutorials and how-to guides stay true: every command in their
```bash blocks is checked against the project (:data:`PAGES`, in the order a reader meets them).

Each `helmlite …` line must parse with the CLI's own parser (placeholders such as <suite> are plain
arguments), and the cheap ones run (no model: `helmlite models list`, `helmlite prompts`); `papermill`
lines name an existing notebook and only its parameters; `snakemake` lines name existing config files,
profiles and targets the workflow knows (checked with a dry run); `make` targets exist in the Makefile;
scripts under benchmarks/ exist. Commands that need a GPU, SLURM or hours are checked, not run.

:func:`test_readme_runs_as_written` then runs every `helmlite` (but `plan`, which calibrates for minutes — the reviewer
tutorial's plan and re-run run on a test-sized config in tests/test_tutorial_reviewer.py — `fetch`, which
copies the data the workflow's tests fetch anyway, and a run against an OpenAI-compatible server, which needs one) and `papermill` command as the pages write them, in order, in a fresh folder that has only the notebooks —
placeholders replaced by the real crfm-helm and lm-eval fixtures under tests/data/ — and checks that the
stand-alone runs wrote under build/standalone/ and never a workflow folder.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from .conftest import MIRROR
from helmlite import cli

REPO = Path(__file__).resolve().parent.parent


#: The pages whose commands are checked, in reading order: a later page's commands may use an earlier one's outputs
#: (the tutorials' runs, then the imports the reviewer compares).
PAGES = ("README.md", "docs/tutorials/reproduce.md", "docs/tutorials/own-model.md", "docs/tutorials/teach.md",
         "docs/how-to/import-runs.md",
         "docs/how-to/leaderboard.md", "docs/tutorials/reviewer.md", "docs/explanation/planning.md",
         "docs/how-to/configs-and-clusters.md", "docs/how-to/offline-mirror.md", "docs/how-to/add-a-scenario.md",
         "docs/how-to/add-a-metric-family.md", "docs/how-to/add-a-backend.md", "docs/how-to/add-an-analysis.md",
         "docs/benchmarks.md")


def readme_commands(pages=PAGES) -> list[str]:
    """Every command line of the pages' bash blocks: continuations joined, comments and env assignments dropped."""
    text = "\n".join((REPO / page).read_text() for page in pages)
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                lines.append(re.sub(r"^(?:[A-Z_]+=\S+\s+)+", "", line))
    return lines


def notebook_parameters(path: Path) -> set[str]:
    cells = json.loads(path.read_text())["cells"]
    source = next("".join(c["source"]) for c in cells if "parameters" in c.get("metadata", {}).get("tags", []))
    return set(re.findall(r"^(\w+)\s*=", source, re.M))


COMMANDS = readme_commands()


def test_readme_has_commands_of_every_kind():
    kinds = {command.split()[0].rsplit("/", 1)[-1] for command in COMMANDS}
    assert {"make", "papermill", "snakemake", "helmlite"} <= kinds


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_is_true(command, mirrored_cache, capsys):
    words = shlex.split(command)
    program = words[0].rsplit("/", 1)[-1]
    if program == "helmlite":
        cli.build_parser().parse_args(words[1:])  # a usage mistake raises
        if words[1:3] == ["models", "list"] or words[1] == "prompts":
            assert cli.main(words[1:]) == 0
            assert capsys.readouterr().out.strip()
    elif program == "papermill":
        notebook = REPO / words[1]
        assert notebook.is_file(), command
        given = [words[k + 1] for k, word in enumerate(words) if word == "-p"]
        assert set(given) <= notebook_parameters(notebook), command
        for k, word in enumerate(words):
            if word == "-y":  # the YAML it passes names parameters too
                assert re.match(r"(\w+):", words[k + 1]).group(1) in notebook_parameters(notebook)
    elif program == "snakemake":
        for flag in ("--configfile", "--workflow-profile"):
            if flag in words:
                assert (REPO / words[words.index(flag) + 1]).exists(), command
        if "--workflow-profile" not in words:  # a cluster profile needs the cluster: its config is checked above
            targets = [w for w in words[1:] if not w.startswith("-") and not w.isdigit()
                       and words[words.index(w) - 1] not in ("--configfile", "--cores")]
            config = words[words.index("--configfile"):words.index("--configfile") + 2] if "--configfile" in words else []
            done = subprocess.run([sys.executable, "-m", "snakemake", *targets, "--dry-run", "--quiet", "--cores", "1",
                                   *config], cwd=REPO, capture_output=True, text=True)  # targets before --configfile
            assert done.returncode == 0, done.stderr[-2000:]
    elif program == "make":
        assert re.search(rf"^{re.escape(words[1])}:", (REPO / "Makefile").read_text(), re.M), command
    elif program == "export":  # a variable a later command reads (the OpenAI-compatible server's settings)
        assert re.fullmatch(r"export [A-Z_]+=\S+", command), command
    elif program in ("python", "bash", "pip"):
        scripts = [w for w in words if w.startswith("benchmarks/")]
        assert scripts and all((REPO / s).is_file() for s in scripts), command
    else:
        pytest.fail(f"README command of an unknown kind: {command}")


PLACEHOLDERS = {  # README placeholder -> the real runs made by crfm-helm, lm-eval and inspect_ai (recipes under benchmarks/)
    "benchmark_output/runs/<suite>/<run>/": [REPO / "tests" / "data" / "helm" / m for m in ("smollm2-135m", "gemma3-270m")],
    "out/<model>/samples_<task>_<date>.jsonl": [next((REPO / "tests" / "data" / "lm_eval" / m).glob("samples_*.jsonl"))
                                               for m in ("smollm2-135m", "gemma3-270m")],
    "logs/<log>.eval": [next((REPO / "tests" / "data" / "inspect" / m).glob("*.eval")) for m in ("smollm2-135m", "gemma3-270m")],
    "data/models/smollm2-135m": [REPO / "data" / "models" / "smollm2-135m"],  # a model directory by its path
    "<leaderboard>.csv": [(MIRROR or Path("no-mirror")) / "helm" / "results" / "helm_classic_v0.4.0_core_scenarios_all_metrics.csv"],
}


def runnable(command: str) -> bool:
    words = command.split()
    return words[0] == "papermill" or (words[0] == "helmlite" and words[1] not in ("plan", "fetch") and "openai:" not in command)


@pytest.mark.slow
def test_readme_runs_as_written(tmp_path, mirrored_cache):
    """In order: models list/prepare, a 20-item run, prompts, the imports, notebook 01 on the imported runs, a second
    model's 20-item run, ``helmlite compare`` on the native, HELM, lm-eval and inspect pairs, notebooks 05 and 03
    stand-alone. Each exits 0; notebook 01 compares the two imported models paired on the
    fixtures' 10 items; nothing lands in tables/, figures/ or reports/."""
    script = []
    for command in filter(runnable, COMMANDS):
        for placeholder, paths in PLACEHOLDERS.items():
            command = command.replace(placeholder, " ".join(shlex.quote(str(p)) for p in paths))
        script.append(command)
    assert len(script) >= 9 and not any("<" in c.split("|")[0] for c in script)
    (tmp_path / "notebooks").symlink_to(REPO / "notebooks")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "HELMLITE_MODEL_DIR": str(REPO / "data" / "models")}  # prepared once for the whole suite
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:].replace("\r", "\n")[-3000:]
    assert done.stdout.count('Verdict on "1st > 2nd"') == 3 and "metric,run_a,run_b,n,dropped,kind" in done.stdout  # the compare lines
    standalone = tmp_path / "build" / "standalone"
    assert sorted(p.name for p in standalone.iterdir()) == ["01_helm_core", "03_helmet_correlations",
                                                             "05_helpsteer2_aggregation", "06_methods_lab"]
    difference = pd.read_csv(standalone / "01_helm_core" / "tables" / "helm_core_model_difference.csv")
    assert set(difference["n"]) == {10}
    assert not any((tmp_path / folder).exists() for folder in ("tables", "figures", "reports"))
