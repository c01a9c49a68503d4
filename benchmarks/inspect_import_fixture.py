"""Recipe for the inspect_ai import fixtures under ``tests/data/inspect/``: real ``.eval`` logs, two models, 10 MMLU items.

Runs inspect_ai (the version pinned in ``pyproject.toml``'s ``inspect`` extra) through its own command line,
offline, on a local task over the mirror's MMLU ``us_foreign_policy`` test file: one prompt with the question and
its lettered choices ending in ``Answer:``, zero-shot, inspect's ``generate()`` solver (24 tokens at most) and its
``pattern()`` scorer taking the first ``<letter>)`` of the answer, ``--limit 10`` (the first ten test questions).
(inspect's ``multiple_choice()`` solver and ``choice()`` scorer want ``ANSWER: <letter>``, which neither small model
writes: both scored 0/10 with them.) The samples' ids are helmlite's MMLU
instance ids (``mmlu/us_foreign_policy/test/<k>``) and the task is named ``mmlu`` with argument ``subject``, so an
imported run holds the same items under the same ids as a native helmlite run (its metric is the scorer's,
``pattern``). Each embedded model is the prepared Hugging Face
directory (``helmlite models prepare``) loaded by inspect's ``hf`` provider on the CPU, greedy (``-M do_sample=false``: inspect's ``hf`` provider samples by default, and
transformers refuses temperature 0). For
each model the recipe copies inspect's ``.eval`` log into ``tests/data/inspect/<model>/``.

inspect_ai installs into the project's own environment (``pip install -e '.[inspect]'``; ``make venv`` does it)::

    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/inspect_import_fixture.py
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from fixture_args import fixture_parser  # benchmarks/ is on sys.path when run as a script
from helmlite import data
from helmlite.models import prepare

TASK = '''"""MMLU (Hendrycks et al. 2021), one subject's test questions: the lettered choices in the prompt, a short generation,
the first "<letter>)" of the answer scored against the key."""
import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import pattern
from inspect_ai.solver import generate, solver


@solver
def lettered_choices():
    """The user message: the question, its choices as "A) ...", then "Answer:" (the sample's input stays the question)."""
    async def solve(state, generate):
        choices = "\\n".join(f"{letter}) {choice.value}" for letter, choice in zip("ABCD", state.choices))
        state.user_prompt.text = f"{state.input_text}\\n{choices}\\nAnswer:"
        return state
    return solve


@task
def mmlu(subject: str = "us_foreign_policy"):
    rows = [json.loads(line) for line in (Path(__file__).parent / f"{subject}_test.jsonl").open()]
    samples = [Sample(id=row["id"], input=row["question"], choices=row["choices"], target="ABCD"[row["answer"]])
               for row in rows]
    return Task(dataset=MemoryDataset(samples, name=f"mmlu_{subject}"), solver=[lettered_choices(), generate()],
                scorer=pattern(r"\\b([ABCD])\\)"))
'''


def write_task(folder: Path, subject: str) -> Path:
    """``task.py`` and the subject's test questions (helmlite's instance ids) in ``folder``."""
    with open(data.fetch(f"helm/datasets/mmlu/test/{subject}_test.csv"), newline="", encoding="utf-8") as handle:
        rows = [{"id": f"mmlu/{subject}/test/{k}", "question": r["question"], "choices": [r[f"choice{c}"] for c in range(4)],
                 "answer": int(r["answer"])} for k, r in enumerate(csv.DictReader(handle))]
    (folder / f"{subject}_test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "task.py").write_text(TASK, encoding="utf-8")
    return folder / "task.py"


def main() -> None:
    args = fixture_parser(__doc__.splitlines()[0], "inspect", str(Path(sys.executable).with_name("inspect")),
                          "inspect").parse_args()
    work = Path(tempfile.mkdtemp(prefix="helmlite-inspect-"))
    task = write_task(work, args.subject)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "INSPECT_LOG_DIR": str(work / "logs")}
    for model in args.models:
        logs = work / "logs" / model
        subprocess.run([args.inspect, "eval", task.name, "-T", f"subject={args.subject}", "--model", "hf/local",
                        "-M", f"model_path={prepare(model)}", "-M", "device=cpu", "--limit", str(args.limit),
                        "-M", "do_sample=false", "--max-tokens", "24", "--log-dir", str(logs), "--log-format", "eval",
                        "--display", "plain"], check=True, env=env, cwd=work)  # inspect globs task paths: relative
        target = Path(args.out) / model
        target.mkdir(parents=True, exist_ok=True)
        for old in target.glob("*.eval"):
            old.unlink()  # one run per model folder
        for log in logs.glob("*.eval"):
            shutil.copyfile(log, target / log.name)
            print(f"{log} -> {target / log.name}")


if __name__ == "__main__":
    main()
