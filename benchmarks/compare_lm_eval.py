"""Side by side with lm-evaluation-harness: same model, same items, same prompts, same machine.

Workload: MMLU's five HELM subjects — the items helmlite evaluates, as HELM does: the validation split, then test
(567 items) — 5-shot with the first five dev questions as fixed in-context examples for every question (lm-eval: a
local custom task over the same files, validation then test rows in one evaluated split, each row carrying helmlite's
instance id, with the ``first_n`` few-shot sampler), multiple choice scored by log-likelihood of " A".." D", the
prepared ``smollm2-135m`` directory in fp32 on the CPU with the same thread count.

**Same items, checked.** The two sides are paired by instance id, never by position; the script exits non-zero with
one line when an item of one side is missing from the other or when a prompt string differs. ``--limit N`` takes the
first N items of each subject on both sides (validation first) — a quick check of the alignment; ``--write-fixture``
stores, per item, the sha256 of lm-eval's prompt and its log-likelihoods (no question text), which
``tests/test_lm_eval_alignment.py`` compares with helmlite's without lm-eval installed.

Repeats alternate the tools (helmlite, lm-eval, helmlite, …: drift on a shared machine hits both alike), each in a
fresh spawned process of its own, so a tool's peak RSS (``ru_maxrss``) is its own. Prints: items paired,
the identical-prompt check, per-item agreement of the predicted answer, max |Δ log-likelihood|, wall time per tool
(model loading excluded for both) and peak RSS per tool with their medians, the per-repeat ratios and their median;
helmlite's tokens actually encoded vs total prompt tokens, and per repeat its encoded tokens/s against the raw forward
rate measured in the same process, subject by subject right after that subject's scoring (eight full prompts spread
over the subject's items, one per forward: no reuse, no padding) — the encode limit — and their ratio. Usage (after ``make venv``):

    .venv/bin/pip install -r benchmarks/requirements.txt
    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/compare_lm_eval.py --threads 2 --repeats 3
    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/compare_lm_eval.py --limit 10 --repeats 1 \
        --write-fixture tests/data/lm_eval_alignment.json
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import multiprocessing
import resource
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import torch

from helmlite import data
from helmlite.evaluation import AdapterSpec, adapt
from helmlite.models import ScoreRequest, load_model, prepare
from helmlite.scenarios import TEST, TRAIN, scenario
from helmlite.scenarios.mmlu import SUBJECTS

LETTERS = ("A", "B", "C", "D")


# the two task layouts over the mirror's MMLU: letters (HELM's joint, compared here) and answer texts (cloze,
# the lm-eval fixture of tests/data/lm_eval made by benchmarks/lm_eval_import_fixture.py)
LAYOUTS = {
    "letters": {"prefix": "helmlite_mmlu", "intro": "multiple choice questions",
                "doc_to_text": "{{question.strip()}}\\nA. {{choices[0]}}\\nB. {{choices[1]}}\\nC. {{choices[2]}}\\nD. {{choices[3]}}\\nAnswer:",
                "doc_to_choice": '["A", "B", "C", "D"]', "metrics": ("acc",)},
    "cloze": {"prefix": "helmlite_mmlu_cloze", "intro": "questions", "doc_to_text": "Question: {{question.strip()}}\\nAnswer:",
              "doc_to_choice": '"{{choices}}"', "metrics": ("acc", "acc_norm")},
}


def _rows(subject: str, split: str) -> list[dict]:
    """One split of the mirror's MMLU files as lm-eval documents, each with the id helmlite gives that item
    (``mmlu/<subject>/<split>/<k>``): dev and test in the header layout (answer 0–3), validation in the raw Hendrycks
    layout (answer letter), read in universal-newline mode as crfm-helm reads it."""
    if split == "val":
        with open(data.fetch(f"helm/datasets/mmlu/val_raw/{subject}_val.csv"), encoding="utf-8") as handle:
            return [{"id": f"mmlu/{subject}/val/{k}", "question": r[0], "choices": r[1:5], "answer": "ABCD".index(r[5])}
                    for k, r in enumerate(csv.reader(handle))]
    with open(data.fetch(f"helm/datasets/mmlu/{split}/{subject}_{split}.csv"), newline="", encoding="utf-8") as handle:
        return [{"id": f"mmlu/{subject}/{split}/{k}", "question": r["question"], "choices": [r[f"choice{c}"] for c in range(4)],
                 "answer": int(r["answer"])} for k, r in enumerate(csv.DictReader(handle))]


def lm_eval_task(folder: Path, subject: str, layout: str = "letters") -> str:
    """A custom lm-eval task over the registry's MMLU files (dev → few-shot split, first_n sampler), in one of
    :data:`LAYOUTS`; returns the task name."""
    form = LAYOUTS[layout]
    for split, rows in (("dev", _rows(subject, "dev")), ("test", _rows(subject, "val") + _rows(subject, "test"))):
        with open(folder / f"{subject}_{split}.jsonl", "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows)
    name = f"{form['prefix']}_{subject}"
    metrics = "".join(f"\n  - metric: {m}" for m in form["metrics"])
    (folder / f"{name}.yaml").write_text(f"""task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    dev: {folder / f'{subject}_dev.jsonl'}
    test: {folder / f'{subject}_test.jsonl'}
test_split: test
fewshot_split: dev
fewshot_config:
  sampler: first_n
num_fewshot: 5
output_type: multiple_choice
description: "The following are {form['intro']} (with answers) about {subject.replace('_', ' ')}.\\n\\n"
doc_to_text: "{form['doc_to_text']}"
doc_to_choice: {form['doc_to_choice']}
doc_to_target: answer
metric_list:{metrics}
metadata:
  version: 1.0
""", encoding="utf-8")
    return name


def helmlite_requests(model, subject: str) -> tuple[list[str], list[ScoreRequest], list[int]]:
    """The ids, prompts and gold answers of every item helmlite evaluates (validation, then test) through its
    adaptation: joint multiple choice, lm-eval's layout."""
    spec = AdapterSpec(method="multiple_choice_joint", max_train_instances=5, input_prefix="", input_suffix="\n",
                       output_prefix="Answer:", output_suffix="\n", instance_separator="\n",
                       instructions=f"The following are multiple choice questions (with answers) about {subject.replace('_', ' ')}.")
    instances = scenario("mmlu").load(subject=subject)
    train, test = [i for i in instances if i.split == TRAIN], [i for i in instances if i.split == TEST]
    examples = train[:5]  # first-n, as lm-eval's sampler (helmlite's class-balanced sampler has no lm-eval equivalent)
    requests = [adapt(i.__class__(i.id, i.input.strip(), i.references, i.split), examples, spec, model).requests[0] for i in test]
    gold = [next(k for k, r in enumerate(i.references) if r.correct) for i in test]
    return [i.id for i in test], requests, gold


def _peak_rss_mib() -> float:
    """This process's peak resident set size (``ru_maxrss``, KiB on Linux) in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def raw_forwards(model, requests: list[ScoreRequest], rows: int = 8) -> tuple[int, float]:
    """(tokens, seconds) of plain forwards over full prompts, one prompt per forward (no reuse, no packing, no padding
    to waste), on the same model and threads: the encode limit. The ``rows`` prompts are spread evenly over
    ``requests`` (one subject's, validation and test), so their lengths — and the attention each token pays — are that
    subject's."""
    step = max(1, len(requests) // rows)
    ids = [model._encode(r.prompt + r.continuations[0]) for r in requests[::step][:rows]]
    started = time.perf_counter()
    with torch.no_grad():
        for prompt in ids:
            model.model(input_ids=torch.tensor([prompt]), logits_to_keep=1)
    return sum(map(len, ids)), time.perf_counter() - started


def helmlite_side(threads: int, batch_size: int, limit: int | None) -> dict:
    """One helmlite repeat in a process of its own (a worker): the model loaded, then subject by subject the workload
    scored and timed (model loading excluded) and, right after, the raw forward rate on eight of that subject's
    prompts (:func:`raw_forwards`) — the encode limit measured beside the work it bounds, on the same prompt mix and
    minutes of the machine. Returns per item (by id) its prompt, log-likelihoods and gold answer; the wall time of the
    scoring; the tokens encoded; the raw rate (all subjects' raw tokens over their seconds); and the process's peak
    RSS, which covers the raw forwards too (from the first subject on they alternate with the scoring), so it is an
    upper bound on helmlite's own (1,194–1,228 MiB on 2026-12-07 against 1,150–1,173 MiB read before any raw forward)."""
    torch.set_num_threads(threads)
    model = load_model("smollm2-135m", threads=threads, batch_size=batch_size)
    workload = []
    for subject in SUBJECTS:
        ids, requests, gold = helmlite_requests(model, subject)
        workload.append((ids[:limit], requests[:limit], gold[:limit]))
    wall, raw_tokens, raw_seconds, scores = 0.0, 0, 0.0, []
    for _, requests, _ in workload:
        started = time.perf_counter()
        scores += [list(s.logprobs) for s in model.score(requests)]
        wall += time.perf_counter() - started
        tokens, seconds = raw_forwards(model, requests)
        raw_tokens, raw_seconds = raw_tokens + tokens, raw_seconds + seconds
    flat = [r for _, requests, _ in workload for r in requests]
    total = sum(model.count_tokens(r.prompt) + 1 for r in flat) * len(LETTERS)
    items = {item_id: {"prompt": r.prompt, "loglikelihoods": s, "gold": g}
             for (item_id, r, g), s in zip(((i, r, g) for ids, requests, gold in workload for i, r, g in zip(ids, requests, gold)), scores)}
    return {"wall": wall, "items": items, "encoded": model.encoded_tokens, "total_tokens": total,
            "raw_rate": raw_tokens / raw_seconds, "rss_mib": _peak_rss_mib()}


def lm_eval_side(threads: int, batch_size: int, limit: int | None) -> dict:
    """One lm-eval repeat in a process of its own: HFLM over the same prepared directory, the five tasks evaluated and
    timed (model loading excluded). Returns per item (by the id each document carries) lm-eval's prompt and
    log-likelihoods, the wall time and the process's peak RSS."""
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    torch.set_num_threads(threads)
    folder = Path(tempfile.mkdtemp(prefix="helmlite-lmeval-"))
    tasks = [lm_eval_task(folder, s) for s in SUBJECTS]
    lm = HFLM(pretrained=str(prepare("smollm2-135m")), dtype="float32", device="cpu", batch_size=batch_size)
    manager = TaskManager(include_path=str(folder))
    started = time.perf_counter()
    out = lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=manager, log_samples=True, num_fewshot=5, limit=limit)
    wall = time.perf_counter() - started
    items = {s["doc"]["id"]: {"prompt": s["arguments"][0][0],  # (loglik, is_greedy) per choice
                              "loglikelihoods": [float(resp[0]) for resp in s["filtered_resps"]]}
             for task in tasks for s in out["samples"][task]}
    return {"wall": wall, "items": items, "rss_mib": _peak_rss_mib(), "version": lm_eval.__version__}


def in_worker(side, *args) -> dict:
    """``side(*args)`` in a fresh spawned process, so each repeat's peak RSS is its tool's alone and no repeat
    inherits another's caches."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(side, *args).result()


def paired(ours: dict, theirs: dict) -> tuple[list[str], list[str]]:
    """The ids both sides scored (helmlite's order) and the ids found on one side only, as "lm-eval lacks <id>" /
    "helmlite lacks <id>"."""
    both = [i for i in ours if i in theirs]
    unmatched = [f"lm-eval lacks {i}" for i in ours if i not in theirs] + [f"helmlite lacks {i}" for i in theirs if i not in ours]
    return both, unmatched


def write_fixture(path: Path, theirs: dict, ids: list[str], version: str) -> None:
    """Per item, the sha256 of lm-eval's prompt and its log-likelihoods of " A".." D" (no question text: the data
    are third-party), written atomically."""
    items = {i: {"prompt_sha256": hashlib.sha256(theirs[i]["prompt"].encode()).hexdigest(),
                 "loglikelihoods": theirs[i]["loglikelihoods"]} for i in ids}
    body = {"lm_eval": version, "model": "smollm2-135m", "dtype": "float32", "items": items}
    temporary = path.with_suffix(".part")
    temporary.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)


def _spread(values: list[float], unit: str = " s", digits: int = 1) -> str:
    return f"median {statistics.median(values):.{digits}f}{unit}  ({', '.join(f'{v:.{digits}f}' for v in values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--limit", type=int, default=None, help="items per subject, validation first (default: all, 567)")
    parser.add_argument("--write-fixture", type=Path, default=None, help="write lm-eval's prompt hashes and scores here")
    args = parser.parse_args()
    prepare("smollm2-135m")
    runs = {"helmlite": [], "lm-eval": []}
    for _ in range(args.repeats):  # alternate, so drift on a shared machine hits both tools alike
        runs["helmlite"].append(in_worker(helmlite_side, args.threads, args.batch_size, args.limit))
        runs["lm-eval"].append(in_worker(lm_eval_side, args.threads, args.batch_size, args.limit))
    ours, theirs = runs["helmlite"][-1]["items"], runs["lm-eval"][-1]["items"]
    ids, unmatched = paired(ours, theirs)
    prompts_equal = sum(theirs[i]["prompt"] == ours[i]["prompt"] for i in ids)
    ours_pred = [int(np.argmax(ours[i]["loglikelihoods"])) for i in ids]
    theirs_pred = [int(np.argmax(theirs[i]["loglikelihoods"])) for i in ids]
    gold = [ours[i]["gold"] for i in ids]
    agree = sum(a == b for a, b in zip(ours_pred, theirs_pred))
    max_delta = max(abs(a - b) for i in ids for a, b in zip(ours[i]["loglikelihoods"], theirs[i]["loglikelihoods"]))
    walls = {tool: [r["wall"] for r in repeats] for tool, repeats in runs.items()}
    ratios = [t / o for t, o in zip(walls["lm-eval"], walls["helmlite"])]
    encode = [r["encoded"] / r["wall"] for r in runs["helmlite"]]
    raw = [r["raw_rate"] for r in runs["helmlite"]]
    print(f"items: {len(ours)} (MMLU, 5 HELM subjects, validation then test, 5-shot first-n), threads: {args.threads}, "
          f"repeats: {args.repeats}, each side in a fresh process per repeat")
    print(f"items paired by id: {len(ids)}/{len(ours)}")
    print(f"identical prompt strings: {prompts_equal}/{len(ids)}")
    print(f"predicted-answer agreement: {agree / max(1, len(ids)):.4f} ({agree}/{len(ids)}); accuracy helmlite "
          f"{np.mean([p == g for p, g in zip(ours_pred, gold)]):.3f}, lm-eval {np.mean([p == g for p, g in zip(theirs_pred, gold)]):.3f}")
    print(f"max |Δ log-likelihood|: {max_delta:.2e}")
    for tool in runs:
        print(f"{tool:9} wall: {_spread(walls[tool])}; peak RSS: {_spread([r['rss_mib'] for r in runs[tool]], ' MiB', 0)}")
    print(f"ratio lm-eval / helmlite: per repeat {', '.join(f'{r:.2f}x' for r in ratios)}; median {statistics.median(ratios):.2f}x")
    last = runs["helmlite"][-1]
    print(f"helmlite tokens encoded: {last['encoded']:,} of {last['total_tokens']:,} prompt+continuation tokens "
          f"({last['encoded'] / last['total_tokens']:.1%})")
    print(f"encoded tok/s {_spread(encode, '', 0)} vs raw forward tok/s {_spread(raw, '', 0)} (same process, after each subject); "
          f"per repeat {', '.join(f'{e / r:.2f}x' for e, r in zip(encode, raw))}, median "
          f"{statistics.median(e / r for e, r in zip(encode, raw)):.2f}x the encode limit")
    if args.write_fixture:
        write_fixture(args.write_fixture, theirs, ids, runs["lm-eval"][-1]["version"])
    if unmatched:
        sys.exit(f"compare_lm_eval: the two sides compare different items ({len(unmatched)} unmatched, e.g. {unmatched[0]})")
    if prompts_equal != len(ids):
        first = next(i for i in ids if theirs[i]["prompt"] != ours[i]["prompt"])
        sys.exit(f"compare_lm_eval: {len(ids) - prompts_equal} of {len(ids)} prompts differ between the tools "
                 f"(first: {first}); the timings compare different work")


if __name__ == "__main__":
    main()
