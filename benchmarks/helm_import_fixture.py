"""Recipe for the HELM import fixtures under ``tests/data/helm/``: a real crfm-helm run, two models, 10 MMLU items.

Runs crfm-helm 0.5.16 (its own venv, see ``benchmarks/requirements.txt`` for lm-eval's; crfm-helm is installed
apart because it pins its own torch) on MMLU ``us_foreign_policy`` (joint multiple choice, 5-shot, HELM's
own run spec ``mmlu:subject=...,method=multiple_choice_joint``) with ``--max-eval-instances 10`` for the two
embedded models, and copies the four files ``helmlite import helm`` and its tests read
(``run_spec.json``, ``scenario_state.json``, ``per_instance_stats.json``, ``stats.json``) from each
``benchmark_output/runs/<suite>/<run>/`` into ``tests/data/helm/<model>/``.

Set-up facts (measured on this machine with crfm-helm 0.5.16):

* install: ``python -m venv /tmp/helm-venv && /tmp/helm-venv/bin/pip install -c constraints.txt torch==2.13.0
  torchvision==0.28.0 crfm-helm==0.5.16`` with ``constraints.txt`` = ``torch==2.13.0`` (unpinned, pip
  replaces the CPU torch with a 6 GB CUDA build), then ``/tmp/helm-venv/bin/pip uninstall -y torchvision``
  (its wheel does not load with the CPU torch and breaks transformers' imports);
* a local model needs ``prod_env/model_deployments.yaml``, ``model_metadata.yaml`` and
  ``tokenizer_configs.yaml`` (``HuggingFaceClient`` with ``pretrained_model_name_or_path`` and
  ``apply_chat_template: false`` — HELM turns the chat template on for any tokenizer that has one);
* MMLU goes under ``benchmark_output/scenarios/mmlu/data/{dev,test}/<subject>_<split>.csv`` without a
  header and with letter answers; HELM then does not download it.

Usage (the embedded models are prepared if absent; the data come from the mirror)::

    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/helm_import_fixture.py [--helm-venv /tmp/helm-venv]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from compare_helm import write_mmlu  # benchmarks/ is on sys.path when run as a script
from helmlite.models import prepare

REPO = Path(__file__).resolve().parents[1]
FILES = ("run_spec.json", "scenario_state.json", "per_instance_stats.json", "stats.json")
# embedded model -> HELM tokenizer end-of-text and prefix tokens (as HELM's own configs for these families)
TOKENS = {"smollm2-135m": ("<|endoftext|>", "<|im_end|>"), "gemma3-270m": ("<eos>", "<bos>")}


def write_prod_env(folder: Path, models: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    deployments, metadata, tokenizers = ["model_deployments:"], ["models:"], ["tokenizer_configs:"]
    for name in models:
        path = prepare(name)
        end, prefix = TOKENS[name]
        deployments += [f"  - name: helmlite/{name}", f"    model_name: helmlite/{name}", f"    tokenizer_name: helmlite/{name}",
                        "    max_sequence_length: 8192", "    client_spec:",
                        '      class_name: "helm.clients.huggingface_client.HuggingFaceClient"', "      args:",
                        f"        pretrained_model_name_or_path: {path}", "        apply_chat_template: false"]
        metadata += [f"  - name: helmlite/{name}", f"    display_name: {name}", f"    description: helmlite's embedded {name}",
                     "    creator_organization_name: helmlite", "    access: open", "    release_date: 2024-10-31",
                     "    tags: [TEXT_MODEL_TAG, PARTIAL_FUNCTIONALITY_TEXT_MODEL_TAG]"]
        tokenizers += [f"  - name: helmlite/{name}", "    tokenizer_spec:",
                       '      class_name: "helm.tokenizers.huggingface_tokenizer.HuggingFaceTokenizer"', "      args:",
                       f"        pretrained_model_name_or_path: {path}", f'    end_of_text_token: "{end}"',
                       f'    prefix_token: "{prefix}"']
    for file, lines in (("model_deployments.yaml", deployments), ("model_metadata.yaml", metadata),
                        ("tokenizer_configs.yaml", tokenizers)):
        (folder / file).write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helm-venv", default="/tmp/helm-venv")
    parser.add_argument("--subject", default="us_foreign_policy")
    parser.add_argument("--max-eval-instances", type=int, default=10)
    parser.add_argument("--models", nargs="+", default=list(TOKENS))
    parser.add_argument("--out", default=str(REPO / "tests" / "data" / "helm"))
    parser.add_argument("--workdir", help="where crfm-helm runs (default: a fresh temporary folder)")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="helmlite-helm-"))
    write_prod_env(work / "prod_env", args.models)
    write_mmlu(work / "benchmark_output", [args.subject])
    suite = "helmlite-fixture"
    entries = [f"mmlu:subject={args.subject},method=multiple_choice_joint,model=helmlite/{m}" for m in args.models]
    subprocess.run([f"{args.helm_venv}/bin/helm-run", "--run-entries", *entries, "--suite", suite,
                    "--max-eval-instances", str(args.max_eval_instances), "--local-path", "prod_env",
                    "--output-path", "benchmark_output", "--num-threads", "1", "--exit-on-error"],
                   cwd=work, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    version = subprocess.run([f"{args.helm_venv}/bin/python", "-c", "import importlib.metadata as m; print(m.version('crfm-helm'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    for model in args.models:
        run = work / "benchmark_output" / "runs" / suite / (
            f"mmlu:subject={args.subject},method=multiple_choice_joint,model=helmlite_{model}")
        target = Path(args.out) / model
        target.mkdir(parents=True, exist_ok=True)
        for file in FILES:
            shutil.copyfile(run / file, target / file)
        print(f"crfm-helm {version}: {run} -> {target}")


if __name__ == "__main__":
    main()
