"""crfm-helm's own prompts for the live multiple-choice run specs, as sha256 hashes the tests hold.

``helm-run --dry-run`` adapts every instance and writes ``scenario_state.json`` without calling the model.
This script does that for the run specs of issue 25's done criteria — TruthfulQA mc_single (all 654 valid
items), BBQ Age and Religion (200 test items each) and MMLU US foreign policy (3 train trials), all with
``method=multiple_choice_joint`` — and MMLU and BBQ Age under HELM's robustness perturbation (``data_augmentation=robustness``:
the perturbed prompts are hashed on their own) and RAFT on five subsets (HELM's generation spec; the mirror's prompt settings file placed where crfm-helm reads it, and ``datasets.load_dataset("ought/raft")`` answered from the mirror's train.csv inside crfm-helm's process by :data:`RAFT_SITECUSTOMIZE`) — on the prepared ``smollm2-135m`` directory (its tokenizer decides
truncation; nothing is generated), with the data placed from the mirror in HELM's layout so that crfm-helm
downloads nothing. It prints, per run spec and train trial, the number of prompts and the sha256 of the
prompts in HELM's request order joined by ``PROMPT_SEPARATOR``; ``tests/test_helm_prompts.py`` holds these
values and checks ``helmlite prompts`` (:func:`helmlite.evaluation.instances.adapted_prompts`) against them.

Set-up: crfm-helm 0.5.16 in its own venv, as ``benchmarks/compare_helm.py`` describes (``/tmp/helm-venv``; without
torchvision, whose wheel breaks transformers' imports beside the CPU torch). ``--only raft`` runs the RAFT entries
alone (2026-12-05: five subsets, 40 prompts each, the values in ``tests/test_helm_prompts.py``).

Usage::

    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/helm_prompt_hashes.py

Measured on the 2-core development machine (2026-12-01, crfm-helm 0.5.16): the values in
``tests/test_helm_prompts.py``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_helm import DEPLOYMENT, MODEL, write_mmlu, write_prod_env  # noqa: E402

from helmlite import data  # noqa: E402
from helmlite.models import prepare  # noqa: E402

RAFT_SUBSETS = ("ade_corpus_v2", "banking_77", "one_stop_english", "terms_of_service", "tai_safety_research")
PROMPT_SEPARATOR = "\n\x1e\n"  # between prompts before hashing (a record separator no prompt contains)
#: (helm run entry, --max-eval-instances, --num-train-trials)
ENTRIES = [("truthful_qa:task=mc_single,method=multiple_choice_joint", 1000, 1),
           ("bbq:subject=Age,method=multiple_choice_joint", 200, 1),
           ("bbq:subject=Religion,method=multiple_choice_joint", 200, 1),
           ("mmlu:subject=us_foreign_policy,method=multiple_choice_joint", 1000, 3),
           # with the validation split HELM evaluates beside test: a CRLF file and questions over several lines
           ("mmlu:subject=college_chemistry,method=multiple_choice_joint", 1000, 1),
           ("mmlu:subject=econometrics,method=multiple_choice_joint", 1000, 1),
           # HELM's robustness perturbation (MildMixPerturbation) of the evaluated instances, seeded as HELM seeds it
           ("mmlu:subject=us_foreign_policy,method=multiple_choice_joint,data_augmentation=robustness", 1000, 1),
           ("bbq:subject=Age,method=multiple_choice_joint,data_augmentation=robustness", 200, 1),
           # RAFT with HELM's task instructions and field order (the mirror's prompt_construction_settings.jsonl, the
           # raft-baselines file crfm-helm's RAFTScenario reads) and its generation adapter spec
           *((f"raft:subset={subset}", 1000, 1) for subset in RAFT_SUBSETS)]


def prompt_hash(prompts: list[str]) -> str:
    return hashlib.sha256(PROMPT_SEPARATOR.join(prompts).encode("utf-8")).hexdigest()


def place_data(output: Path) -> None:
    """The mirror's files where crfm-helm's scenarios look for their downloads."""
    write_mmlu(output, ["us_foreign_policy", "college_chemistry", "econometrics"])
    truthful = output / "scenarios" / "truthful_qa" / "data" / "TruthfulQA.csv"
    truthful.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(data.fetch("helm/datasets/truthfulqa/TruthfulQA.csv"), truthful)
    for category in ("Age", "Religion"):
        target = output / "scenarios" / "bbq" / "data" / category  # BBQScenario's target_path: no extension
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data.fetch(f"helm/datasets/bbq/{category}.jsonl"), target)


#: Loaded into crfm-helm's process (PYTHONPATH): RAFTScenario calls ``datasets.load_dataset("ought/raft", subset,
#: split="train")``, which cannot download here; this answers it from the mirror's train.csv (rows in file order, the
#: order the tests of :func:`helmlite.scenarios.raft.helm_split` hold), the label a ClassLabel of the task's labels.
RAFT_SITECUSTOMIZE = """
import csv, json, os
import datasets

_load = datasets.load_dataset


def load_dataset(path, name=None, *args, **kwargs):
    if path != "ought/raft":
        return _load(path, name, *args, **kwargs)
    folder = os.path.join(os.environ["HELMLITE_RAFT_DIR"], name)
    task = json.load(open(os.path.join(folder, "task.json"), encoding="utf-8"))
    (label_column, labels), = task["label_columns"].items()
    rows = list(csv.DictReader(open(os.path.join(folder, "train.csv"), newline="", encoding="utf-8")))
    columns = {c: [row[c] for row in rows] for c in rows[0] if c != label_column}
    columns["ID"] = [int(v) for v in columns["ID"]]
    columns["Label"] = [labels.index(row[label_column]) for row in rows]
    features = datasets.Features({**{c: datasets.Value("int64" if c == "ID" else "string") for c in columns if c != "Label"},
                                  "Label": datasets.ClassLabel(names=labels)})
    return datasets.Dataset.from_dict(columns, features=features)


datasets.load_dataset = load_dataset
"""


def place_raft(work: Path, output: Path) -> dict:
    """RAFT's files where crfm-helm reads them: the prompt settings (the two-line JSON file) under the scenario's
    cache path and its data folder, each subset's train.csv and task.json for :data:`RAFT_SITECUSTOMIZE`; returns the
    environment crfm-helm's process needs."""
    settings = data.fetch("helm/datasets/raft/prompt_construction_settings.jsonl")
    for folder in (output / "scenarios" / "raft", output / "scenarios" / "raft" / "data"):
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(settings, folder / "prompt_construction_settings.json")
    raft = work / "raft"
    for subset in RAFT_SUBSETS:
        (raft / subset).mkdir(parents=True, exist_ok=True)
        for name in ("train.csv", "task.json"):
            shutil.copyfile(data.fetch(f"helm/datasets/raft/{subset}/{name}"), raft / subset / name)
    (work / "site").mkdir(exist_ok=True)
    (work / "site" / "sitecustomize.py").write_text(RAFT_SITECUSTOMIZE)
    return {"HELMLITE_RAFT_DIR": str(raft), "PYTHONPATH": str(work / "site")}


def helm_prompts(run_dir: Path) -> dict[tuple[int, str], list[str]]:
    """(train trial, perturbation name or "identity") → prompts in crfm-helm's request order (``scenario_state.json``)."""
    state = json.loads((run_dir / "scenario_state.json").read_text())
    out: dict[tuple[int, str], list[str]] = {}
    for request_state in state["request_states"]:
        perturbation = (request_state["instance"].get("perturbation") or {}).get("name", "identity")
        out.setdefault((int(request_state.get("train_trial_index", 0)), perturbation), []).append(request_state["request"]["prompt"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helm-venv", default="/tmp/helm-venv")
    parser.add_argument("--workdir", help="default: a fresh temporary folder")
    parser.add_argument("--only", help="run only the entries that start with this (e.g. raft)")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="helm-prompts-")).absolute()
    model_dir = prepare(MODEL)
    from transformers import AutoTokenizer

    write_prod_env(work / "prod_env", model_dir, AutoTokenizer.from_pretrained(str(model_dir)))
    place_data(work / "benchmark_output")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           **place_raft(work, work / "benchmark_output")}
    results = {}
    for entry, max_eval, trials in ENTRIES:
        if args.only and not entry.startswith(args.only):
            continue
        command = [f"{args.helm_venv}/bin/helm-run", "--run-entries", f"{entry},model={DEPLOYMENT}", "--suite", "prompts",
                   "--max-eval-instances", str(max_eval), "--num-train-trials", str(trials), "--local-path", "prod_env",
                   "--output-path", "benchmark_output", "--dry-run", "--exit-on-error"]
        with open(work / "helm-run.log", "a") as log:
            subprocess.run(command, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, check=True)
        run_dir = work / "benchmark_output" / "runs" / "prompts" / f"{entry},model={DEPLOYMENT.replace('/', '_')}"
        for (trial, perturbation), prompts in sorted(helm_prompts(run_dir).items()):
            results[f"{entry}|trial={trial}|{perturbation}"] = {"prompts": len(prompts), "sha256": prompt_hash(prompts)}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
