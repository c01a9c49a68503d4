"""Side by side with crfm-helm: the same MMLU run spec through crfm-helm and through helmlite, same machine.

Workload: HELM's own run spec ``mmlu:subject=<s>,method=multiple_choice_joint`` for the five HELM subjects
(567 items: val and test, as HELM evaluates them; 5-shot, ``num_train_trials=1``, ``max_tokens=1``), the prepared ``smollm2-135m`` directory
(SmolLM2-135M-Instruct dequantised to fp32) as a local Hugging Face model with the chat template **off**, on
the CPU. helmlite runs the same spec with ``adapter.selection=helm_compat`` (crfm-helm's example selection,
order and test subsampling, MMLU's "about <subject>" instructions) and, by default, HELM's joint decision rule
(``joint_decision=helm_greedy``: one greedy token, stripped, exact match on the letter; ``--joint-decision
letter_logprob`` takes helmlite's best-log-prob letter instead).

Prints, per tool and overall: identical prompt strings, identical predictions (the stripped completion /
chosen letter), accuracy each, wall time each (whole processes, model loading and HELM's metrics included)
over ``--repeats`` runs per tool that alternate which tool goes first (each with a fresh request cache), the
median ratio and its range, and peak RSS each (``ru_maxrss`` of each tool's process); the tokens each tool runs
through the model (crfm-helm: its prompts, whole; helmlite: its own count, ``timings.json``'s ``encoded_tokens``),
their ratio — the wall ratio the tools would have at equal cost per token — and each tool's wall time per token.
Items are paired by HELM's
load-order number of helmlite's instance id, never by position; the script exits non-zero with one line when an item
of one tool is missing from the other or when a prompt string differs (the timings would compare different work).

Set-up (measured on this machine with crfm-helm 0.5.16; the benchmark installs nothing itself):

* crfm-helm lives in its own venv, because it pins its own dependencies::

      python3.11 -m venv /tmp/helm-venv
      printf 'torch==2.13.0\\n' > /tmp/helm-constraints.txt
      /tmp/helm-venv/bin/pip install -c /tmp/helm-constraints.txt torch==2.13.0 torchvision==0.28.0 crfm-helm==0.5.16
      /tmp/helm-venv/bin/pip uninstall -y torchvision

  The constraint pins the CPU torch (unpinned, pip replaces it with a 6 GB CUDA build). The repository's own
  ``constraints.txt`` cannot be used as is: it pins pandas 3.1.1 and crfm-helm 0.5.16 requires
  ``pandas~=2.0`` (pip: ResolutionImpossible). torchvision is removed again because its wheel does not load
  with the CPU torch and breaks transformers' imports.
* A local model needs ``prod_env/model_deployments.yaml``, ``model_metadata.yaml`` and
  ``tokenizer_configs.yaml`` (written by :func:`write_prod_env`): ``HuggingFaceClient`` with
  ``pretrained_model_name_or_path``, ``apply_chat_template: false`` (HELM turns the chat template on for any
  tokenizer that has one, and SmolLM2-Instruct's has) and ``max_sequence_length``, because
  ``--enable-local-huggingface-models`` fails on SmolLM2's tokenizer config.
* MMLU goes under ``benchmark_output/scenarios/mmlu/data/{dev,val,test}/<subject>_<split>.csv`` without a header
  and with letter answers (:func:`write_mmlu`, from the data mirror); HELM then does not download it.
* Threads: both processes get ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` = ``--threads`` (crfm-helm's
  HuggingFaceClient never sets torch's thread count) and helmlite also ``--threads``; crfm-helm runs with
  ``--num-threads 1`` (request parallelism), helmlite with a fresh request cache (no cache hits).

Usage::

    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/compare_helm.py --threads 2 --repeats 3
    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/compare_helm.py --max-eval-instances 10  # quick

Figures: the project README's "Benchmarks" table (current, with the machine) and ``benchmarks/README.md`` (history,
what bounds the ratio, what was tried). Timing needs a quiet machine.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from helmlite import data
from helmlite.models import prepare
from helmlite.scenarios.mmlu import SUBJECTS

MODEL = "smollm2-135m"
DEPLOYMENT = f"helmlite/{MODEL}"


def write_prod_env(folder: Path, model_dir: Path, tokenizer, max_sequence_length: int = 8192) -> None:
    """crfm-helm's local configuration for one Hugging Face model directory (chat template off). The end-of-text and
    prefix tokens are the tokenizer's eos and bos tokens, as crfm-helm's own registration of a local model infers them
    (``huggingface_registration.py``); SmolLM2-Instruct's eos is ``<|im_end|>``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model_deployments.yaml").write_text(f"""model_deployments:
  - name: {DEPLOYMENT}
    model_name: {DEPLOYMENT}
    tokenizer_name: {DEPLOYMENT}
    max_sequence_length: {max_sequence_length}
    client_spec:
      class_name: "helm.clients.huggingface_client.HuggingFaceClient"
      args:
        pretrained_model_name_or_path: {model_dir}
        apply_chat_template: false
""", encoding="utf-8")
    (folder / "model_metadata.yaml").write_text(f"""models:
  - name: {DEPLOYMENT}
    display_name: {MODEL}
    description: helmlite's embedded {MODEL} (fp32)
    creator_organization_name: helmlite
    access: open
    release_date: 2024-10-31
    tags: [TEXT_MODEL_TAG, PARTIAL_FUNCTIONALITY_TEXT_MODEL_TAG]
""", encoding="utf-8")
    (folder / "tokenizer_configs.yaml").write_text(f"""tokenizer_configs:
  - name: {DEPLOYMENT}
    tokenizer_spec:
      class_name: "helm.tokenizers.huggingface_tokenizer.HuggingFaceTokenizer"
      args:
        pretrained_model_name_or_path: {model_dir}
    end_of_text_token: "{tokenizer.eos_token or ''}"
    prefix_token: "{tokenizer.bos_token or ''}"
""", encoding="utf-8")


def write_mmlu(output: Path, subjects) -> None:
    """The mirror's MMLU files (header, answers 0-3) in HELM's layout (no header, letter answers), and its validation
    files, already in that layout, as they are (HELM's MMLUScenario loads val beside test)."""
    for subject in subjects:
        val = output / "scenarios" / "mmlu" / "data" / "val" / f"{subject}_val.csv"
        val.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data.fetch(f"helm/datasets/mmlu/val_raw/{subject}_val.csv"), val)
        for split in ("dev", "test"):
            target = output / "scenarios" / "mmlu" / "data" / split / f"{subject}_{split}.csv"
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(data.fetch(f"helm/datasets/mmlu/{split}/{subject}_{split}.csv"), newline="", encoding="utf-8") as handle, \
                    open(target, "w", newline="", encoding="utf-8") as out:
                writer = csv.writer(out)
                for row in csv.DictReader(handle):
                    writer.writerow([row["question"], *(row[f"choice{k}"] for k in range(4)), "ABCD"[int(row["answer"])]])


def timed(command: list[str], cwd: Path, env: dict, log: Path) -> tuple[float, float]:
    """Run one process to completion; (wall seconds, peak RSS in MiB of that process)."""
    started = time.perf_counter()
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{command[0]} failed (exit {os.waitstatus_to_exitcode(status)}); see {log}")
    return wall, usage.ru_maxrss / 1024


def helm_results(run_dir: Path) -> dict[int, dict]:
    """Test index → prompt, prediction, correct from crfm-helm's scenario_state.json and per_instance_stats.json.

    HELM numbers every instance of the scenario in load order (``id0`` … over dev, then val, then test): helmlite's
    MMLU loader lists them in that order, so an instance's HELM number is its position there."""
    state = json.loads((run_dir / "scenario_state.json").read_text())
    em = {}
    for item in json.loads((run_dir / "per_instance_stats.json").read_text()):
        for stat in item["stats"]:
            if stat["name"]["name"] == "exact_match" and not stat["name"].get("perturbation"):
                em[item["instance_id"]] = stat["sum"] / max(1, stat["count"])
    out = {}
    for request_state in state["request_states"]:
        instance_id = request_state["instance"]["id"]
        completion = request_state["result"]["completions"][0]["text"]
        out[int(instance_id.removeprefix("id"))] = {"prompt": request_state["request"]["prompt"], "prediction": completion.strip(),
                                                    "correct": bool(em.get(instance_id, 0.0) >= 1.0)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--helm-venv", default="/tmp/helm-venv")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--subjects", nargs="+", default=list(SUBJECTS))
    parser.add_argument("--max-eval-instances", type=int, default=1000, help="per subject (HELM's flag; default: all 567 val + test items)")
    parser.add_argument("--joint-decision", default="helm_greedy", choices=["helm_greedy", "letter_logprob"])
    parser.add_argument("--repeats", type=int, default=1, help="runs per tool, alternating which tool goes first")
    parser.add_argument("--workdir", help="where both tools write (default: a fresh temporary folder)")
    parser.add_argument("--compare-only", action="store_true",
                        help="run neither tool: compare the outputs of an earlier invocation in --workdir (the last repeat "
                             "of its --repeats)")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="helmlite-vs-helm-")).absolute()
    work.mkdir(parents=True, exist_ok=True)
    model_dir = prepare(MODEL)
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "MKL_NUM_THREADS": str(args.threads),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "HELMLITE_MODEL_DIR": str(Path(model_dir).parent)}  # both processes run in the work folder
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))  # crfm-helm's end-of-text tokens and its prompts' counts
    write_prod_env(work / "prod_env", model_dir, tokenizer)
    write_mmlu(work / "benchmark_output", args.subjects)
    entries = [f"mmlu:subject={s},method=multiple_choice_joint,model={DEPLOYMENT}" for s in args.subjects]
    specs = [{"scenario": "mmlu", "model": MODEL, "args": {"subject": s}, "max_instances": args.max_eval_instances,
              "adapter": {"method": "multiple_choice_joint", "selection": "helm_compat", "joint_decision": args.joint_decision},
              "metrics": ["accuracy"]} for s in args.subjects]
    results = work / "helmlite-out" / "runs"  # not "helmlite/": python -m helmlite would import that folder

    def run_helm(repeat: int) -> tuple[float, float]:
        # a fresh suite and request cache per repeat, so crfm-helm calls the model for every request
        shutil.rmtree(work / "prod_env" / "cache", ignore_errors=True)
        return timed([f"{args.helm_venv}/bin/helm-run", "--run-entries", *entries, "--suite", f"compare{repeat}",
                      "--max-eval-instances", str(args.max_eval_instances), "--local-path", "prod_env",
                      "--output-path", "benchmark_output", "--num-threads", "1", "--exit-on-error"],
                     work, env, work / f"helm-run-{repeat}.log")

    def run_helmlite(repeat: int) -> tuple[float, float]:
        shutil.rmtree(results, ignore_errors=True)
        cache = work / "helmlite-out" / f"requests-{time.time_ns()}.sqlite"  # fresh: every request reaches the model
        return timed([sys.executable, "-m", "helmlite", "run", "--spec-json", json.dumps(specs), "--results-dir",
                      str(results), "--cache", str(cache), "--threads", str(args.threads), "--quiet",
                      "--n-resamples", "100"], work, env, work / f"helmlite-run-{repeat}.log")

    walls = {"crfm-helm": [], "helmlite": []}
    rss = {"crfm-helm": [], "helmlite": []}
    if args.compare_only and not args.workdir:
        parser.error("--compare-only needs the --workdir of an earlier invocation")
    for repeat in range(0 if args.compare_only else args.repeats):
        order = [("crfm-helm", run_helm), ("helmlite", run_helmlite)]
        for tool, run in (order if repeat % 2 == 0 else order[::-1]):  # alternate who goes first
            wall, peak = run(repeat)
            walls[tool].append(wall)
            rss[tool].append(peak)
            print(f"repeat {repeat + 1}/{args.repeats}: {tool} {wall:.1f} s, peak RSS {peak:.0f} MiB", flush=True)
    runs = {s: work / "benchmark_output" / "runs" / f"compare{args.repeats - 1}" /
            f"mmlu:subject={s},method=multiple_choice_joint,model=helmlite_{MODEL}" for s in args.subjects}

    from helmlite.results import read_run
    from helmlite.evaluation import adapted_prompts
    from helmlite.scenarios import scenario
    from helmlite.evaluation import RunSpec

    totals = {"items": 0, "prompts": 0, "dry_prompts": 0, "predictions": 0, "helm_correct": 0, "ours_correct": 0,
              "helm_tokens": 0, "ours_tokens": 0}
    unmatched = []  # items found by one tool only (paired by HELM's load-order number of helmlite's id)
    for subject, spec in zip(args.subjects, specs):
        run_id = RunSpec.from_dict(spec).run_id
        run = read_run(results, run_id)
        ours = run.records
        theirs = helm_results(runs[subject])
        helm_number = {instance.id: k for k, instance in enumerate(scenario("mmlu").load(subject=subject))}
        dry = dict(adapted_prompts(RunSpec.from_dict(spec)))  # what `helmlite prompts` prints (no model)
        same_prompt = same_dry = same_prediction = 0
        unmatched += [f"crfm-helm lacks {r.id}" for r in ours if helm_number[r.id] not in theirs]
        numbered = {helm_number[r.id] for r in ours}
        unmatched += [f"helmlite lacks {subject} id{k}" for k in theirs if k not in numbered]
        for record in ours:
            helm = theirs.get(helm_number[record.id])
            if helm is None:
                continue
            same_prompt += helm["prompt"] == record.prompt
            same_dry += helm["prompt"] == dry.get(record.id)
            same_prediction += helm["prediction"] == (record.prediction or "")
        helm_acc = sum(h["correct"] for h in theirs.values())
        ours_acc = sum(bool(r.correct) for r in ours)
        print(f"{subject:18} items {len(ours):4}  identical prompts {same_prompt:4}  identical predictions {same_prediction:4}  "
              f"accuracy crfm-helm {helm_acc / max(1, len(theirs)):.3f} helmlite {ours_acc / max(1, len(ours)):.3f}")
        if len(theirs) != len(ours):
            print(f"  (crfm-helm evaluated {len(theirs)} items, helmlite {len(ours)})")
        # the work each tool gives the model: crfm-helm runs every prompt whole; helmlite's own count of the positions
        # its model ran (timings.json), each subject's few-shot prefix once, then each question's own tokens
        helm_tokens = sum(len(tokenizer(h["prompt"])["input_ids"]) for h in theirs.values())
        for key, value in (("items", len(ours)), ("prompts", same_prompt), ("dry_prompts", same_dry), ("predictions", same_prediction),
                           ("helm_correct", helm_acc), ("ours_correct", ours_acc), ("helm_tokens", helm_tokens),
                           ("ours_tokens", run.timings.encoded_tokens or 0)):
            totals[key] += value
    n = totals["items"]
    print(f"\nMMLU joint, {len(args.subjects)} subjects, {n} items, {args.threads} threads, helmlite joint_decision={args.joint_decision}")
    print(f"identical prompt strings: {totals['prompts']}/{n} (helmlite run), {totals['dry_prompts']}/{n} (helmlite prompts)")
    print(f"identical predictions:    {totals['predictions']}/{n}")
    print(f"accuracy: crfm-helm {totals['helm_correct'] / max(1, n):.4f}, helmlite {totals['ours_correct'] / max(1, n):.4f}")
    tokens = {"crfm-helm": totals["helm_tokens"], "helmlite": totals["ours_tokens"]}
    print(f"tokens through the model: crfm-helm {tokens['crfm-helm']:,} (every prompt whole), helmlite {tokens['helmlite']:,} "
          f"(each few-shot prefix once, then each question's own) -> token ratio "
          f"{tokens['crfm-helm'] / max(1, tokens['helmlite']):.2f}x, the wall ratio at equal cost per token")
    ratios = [h / o for h, o in zip(walls["crfm-helm"], walls["helmlite"])]
    for tool in walls if ratios else ():
        print(f"wall (whole process), {tool}: median {statistics.median(walls[tool]):.1f} s "
              f"({', '.join(f'{w:.1f}' for w in walls[tool])}); peak RSS median {statistics.median(rss[tool]):.0f} MiB; "
              f"{1000 * statistics.median(walls[tool]) / max(1, tokens[tool]):.2f} ms of wall per token")
    if ratios:
        print(f"ratio crfm-helm / helmlite: median {statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x "
              f"over {len(ratios)} alternating repeats")
    print(f"outputs under {work}")
    if unmatched:
        sys.exit(f"compare_helm: the two tools evaluated different items ({len(unmatched)} unmatched, e.g. {unmatched[0]})")
    if totals["prompts"] != n:
        sys.exit(f"compare_helm: {n - totals['prompts']} of {n} prompts differ between the tools; the timings compare "
                 "different work")


if __name__ == "__main__":
    main()
