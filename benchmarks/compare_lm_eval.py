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

Prints: identical-prompt check, per-item agreement of the predicted answer, max |Δ log-likelihood|,
wall time per tool (median of ``--repeats`` alternating runs; model loading excluded for both) and
the ratio; helmlite's tokens actually encoded vs total prompt tokens, and encoded tokens/s vs the raw
forward rate measured in the same run. Usage (after ``make venv``):

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
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from helmlite import data
from helmlite.adaptation import AdapterSpec, adapt
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


def run_helmlite(model, workload) -> tuple[float, list[list[float]]]:
    started = time.perf_counter()
    scores = [list(s.logprobs) for requests, _ in workload for s in model.score(requests)]
    return time.perf_counter() - started, scores


def run_lm_eval(lm, tasks, task_manager, limit) -> tuple[float, dict]:
    import lm_eval

    started = time.perf_counter()
    out = lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=task_manager, log_samples=True, num_fewshot=5,
                                  limit=limit)
    return time.perf_counter() - started, out["samples"]


def raw_forward_rate(model, requests: list[ScoreRequest], rows: int = 16) -> float:
    """Tokens/s of plain batched forwards over full prompts (no reuse), on the same model and threads."""
    texts = [r.prompt + r.continuations[0] for r in requests[:rows]]
    ids = [model._encode(t) for t in texts]
    started = time.perf_counter()
    with torch.no_grad():
        for start in range(0, len(ids), model.batch_size):
            batch = ids[start:start + model.batch_size]
            width = max(map(len, batch))
            pad = model.tokenizer.pad_token_id
            tensor = torch.tensor([i + [pad] * (width - len(i)) for i in batch])
            mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i in batch])
            model.model(input_ids=tensor, attention_mask=mask, logits_to_keep=1)
    return sum(map(len, ids)) / (time.perf_counter() - started)


def paired(workload, samples: dict, tasks: list[str]) -> tuple[list[tuple[str, ScoreRequest, int, dict]], list[str]]:
    """helmlite's items matched to lm-eval's samples by instance id: ([(id, request, gold, sample)], ids found on one
    side only, as "lm-eval lacks <id>" / "helmlite lacks <id>")."""
    theirs = {s["doc"]["id"]: s for task in tasks for s in samples[task]}
    ours = {item_id: (request, g) for ids, requests, gold in workload for item_id, request, g in zip(ids, requests, gold)}
    pairs = [(item_id, request, g, theirs[item_id]) for item_id, (request, g) in ours.items() if item_id in theirs]
    unmatched = [f"lm-eval lacks {i}" for i in ours if i not in theirs] + [f"helmlite lacks {i}" for i in theirs if i not in ours]
    return pairs, unmatched


def write_fixture(path: Path, pairs) -> None:
    """Per item, the sha256 of lm-eval's prompt and its log-likelihoods of " A".." D" (no question text: the data
    are third-party), written atomically."""
    import lm_eval

    items = {item_id: {"prompt_sha256": hashlib.sha256(sample["arguments"][0][0].encode()).hexdigest(),
                       "loglikelihoods": [float(resp[0]) for resp in sample["filtered_resps"]]}
             for item_id, _, _, sample in pairs}
    body = {"lm_eval": lm_eval.__version__, "model": "smollm2-135m", "dtype": "float32", "items": items}
    temporary = path.with_suffix(".part")
    temporary.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--limit", type=int, default=None, help="items per subject, validation first (default: all, 567)")
    parser.add_argument("--write-fixture", type=Path, default=None, help="write lm-eval's prompt hashes and scores here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = prepare("smollm2-135m")
    model = load_model("smollm2-135m", threads=args.threads, batch_size=args.batch_size)
    workload = []
    for subject in SUBJECTS:
        ids, requests, gold = helmlite_requests(model, subject)
        workload.append((ids[: args.limit], requests[: args.limit], gold[: args.limit]))
    n_items = sum(len(r) for _, r, _ in workload)

    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    folder = Path(tempfile.mkdtemp(prefix="helmlite-lmeval-"))
    tasks = [lm_eval_task(folder, s) for s in SUBJECTS]
    lm = HFLM(pretrained=str(path), dtype="float32", device="cpu", batch_size=args.batch_size)
    manager = TaskManager(include_path=str(folder))

    times = {"helmlite": [], "lm-eval": []}
    for _ in range(args.repeats):  # alternate, so drift on a shared machine hits both tools alike
        model.encoded_tokens = 0
        t, ours = run_helmlite(model, [(requests, gold) for _, requests, gold in workload])
        times["helmlite"].append(t)
        t, samples = run_lm_eval(lm, tasks, manager, args.limit)
        times["lm-eval"].append(t)

    pairs, unmatched = paired(workload, samples, tasks)
    ours_by_id = dict(zip((i for ids, _, _ in workload for i in ids), ours))
    theirs = [[float(resp[0]) for resp in sample["filtered_resps"]] for _, _, _, sample in pairs]  # (loglik, is_greedy)
    mine = [ours_by_id[item_id] for item_id, _, _, _ in pairs]
    prompts_equal = sum(sample["arguments"][0][0] == request.prompt for _, request, _, sample in pairs)
    gold = [g for _, _, g, _ in pairs]
    ours_pred = [int(np.argmax(x)) for x in mine]
    theirs_pred = [int(np.argmax(x)) for x in theirs]
    agreement = np.mean([a == b for a, b in zip(ours_pred, theirs_pred)])
    max_delta = max(abs(a - b) for x, y in zip(mine, theirs) for a, b in zip(x, y))
    flat_requests = [r for _, requests, _ in workload for r in requests]
    total_tokens = sum(model.count_tokens(r.prompt) + 1 for r in flat_requests) * 4
    raw = raw_forward_rate(model, flat_requests)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"items: {n_items} (MMLU, 5 HELM subjects, validation then test, 5-shot first-n), threads: {args.threads}, "
          f"repeats: {args.repeats}")
    print(f"items paired by id: {len(pairs)}/{n_items}")
    print(f"identical prompt strings: {prompts_equal}/{len(pairs)}")
    print(f"predicted-answer agreement: {agreement:.4f} ({sum(a == b for a, b in zip(ours_pred, theirs_pred))}/{len(pairs)}); "
          f"accuracy helmlite {np.mean([p == g for p, g in zip(ours_pred, gold)]):.3f}, lm-eval {np.mean([p == g for p, g in zip(theirs_pred, gold)]):.3f}")
    print(f"max |Δ log-likelihood|: {max_delta:.2e}")
    for tool, values in times.items():
        print(f"{tool:9} wall: median {med[tool]:.1f} s  ({', '.join(f'{v:.1f}' for v in values)})")
    print(f"ratio lm-eval / helmlite: {med['lm-eval'] / med['helmlite']:.2f}x")
    print(f"helmlite tokens encoded: {model.encoded_tokens:,} of {total_tokens:,} prompt+continuation tokens "
          f"({model.encoded_tokens / total_tokens:.1%}); encoded {model.encoded_tokens / times['helmlite'][-1]:.0f} tok/s "
          f"vs raw forward {raw:.0f} tok/s")
    if args.write_fixture:
        write_fixture(args.write_fixture, pairs)
    if unmatched:
        sys.exit(f"compare_lm_eval: the two sides compare different items ({len(unmatched)} unmatched, e.g. {unmatched[0]})")
    if prompts_equal != len(pairs):
        first = next(item_id for item_id, request, _, sample in pairs if sample["arguments"][0][0] != request.prompt)
        sys.exit(f"compare_lm_eval: {len(pairs) - prompts_equal} of {len(pairs)} prompts differ between the tools "
                 f"(first: {first}); the timings compare different work")


if __name__ == "__main__":
    main()
