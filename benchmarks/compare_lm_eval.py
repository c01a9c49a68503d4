"""Side by side with lm-evaluation-harness: same model, same items, same prompts, same machine.

Workload: MMLU's five HELM subjects, 5-shot with the first five dev questions as fixed in-context
examples for every test question (lm-eval: a local custom task over the same files with the
``first_n`` few-shot sampler), multiple choice scored by log-likelihood of " A".." D", the prepared
``smollm2-135m`` directory in fp32 on the CPU with the same thread count.

Prints: identical-prompt check, per-item agreement of the predicted answer, max |Δ log-likelihood|,
wall time per tool (median of ``--repeats`` alternating runs; model loading excluded for both) and
the ratio; helmlite's tokens actually encoded vs total prompt tokens, and encoded tokens/s vs the raw
forward rate measured in the same run. Usage (after ``make venv``):

    .venv/bin/pip install -r benchmarks/requirements.txt
    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/compare_lm_eval.py --threads 2 --repeats 3
"""
from __future__ import annotations

import argparse
import csv
import json
import statistics
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


def lm_eval_task(folder: Path, subject: str, layout: str = "letters") -> str:
    """A custom lm-eval task over the registry's MMLU files (dev → few-shot split, first_n sampler), in one of
    :data:`LAYOUTS`; returns the task name."""
    form = LAYOUTS[layout]
    for split in ("dev", "test"):
        with open(data.fetch(f"helm/datasets/mmlu/{split}/{subject}_{split}.csv"), newline="", encoding="utf-8") as handle:
            rows = [{"question": r["question"], "choices": [r[f"choice{k}"] for k in range(4)], "answer": int(r["answer"])}
                    for r in csv.DictReader(handle)]
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


def helmlite_requests(model, subject: str) -> tuple[list[ScoreRequest], list[int]]:
    """The same prompts through helmlite's adaptation: joint multiple choice, lm-eval's layout."""
    spec = AdapterSpec(method="multiple_choice_joint", max_train_instances=5, input_prefix="", input_suffix="\n",
                       output_prefix="Answer:", output_suffix="\n", instance_separator="\n",
                       instructions=f"The following are multiple choice questions (with answers) about {subject.replace('_', ' ')}.")
    instances = scenario("mmlu").load(subject=subject)
    train, test = [i for i in instances if i.split == TRAIN], [i for i in instances if i.split == TEST]
    examples = train[:5]  # first-n, as lm-eval's sampler (helmlite's class-balanced sampler has no lm-eval equivalent)
    requests = [adapt(i.__class__(i.id, i.input.strip(), i.references, i.split), examples, spec, model).requests[0] for i in test]
    gold = [next(k for k, r in enumerate(i.references) if r.correct) for i in test]
    return requests, gold


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--limit", type=int, default=None, help="test questions per subject (default: all, 514 items)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = prepare("smollm2-135m")
    model = load_model("smollm2-135m", threads=args.threads, batch_size=args.batch_size)
    workload = []
    for subject in SUBJECTS:
        requests, gold = helmlite_requests(model, subject)
        workload.append((requests[: args.limit], gold[: args.limit]))
    n_items = sum(len(r) for r, _ in workload)

    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    folder = Path(tempfile.mkdtemp(prefix="helmlite-lmeval-"))
    tasks = [lm_eval_task(folder, s) for s in SUBJECTS]
    lm = HFLM(pretrained=str(path), dtype="float32", device="cpu", batch_size=args.batch_size)
    manager = TaskManager(include_path=str(folder))

    times = {"helmlite": [], "lm-eval": []}
    for _ in range(args.repeats):  # alternate, so drift on a shared machine hits both tools alike
        model.encoded_tokens = 0
        t, ours = run_helmlite(model, workload)
        times["helmlite"].append(t)
        t, samples = run_lm_eval(lm, tasks, manager, args.limit)
        times["lm-eval"].append(t)

    theirs, prompts_equal, checked = [], 0, 0
    flat_requests = [r for requests, _ in workload for r in requests]
    for task, (requests, _) in zip(tasks, workload):
        docs = sorted(samples[task], key=lambda s: s["doc_id"])[: len(requests)]
        for doc, request in zip(docs, requests):
            theirs.append([float(resp[0]) for resp in doc["filtered_resps"]])  # (loglikelihood, is_greedy) per choice
            checked += 1
            prompts_equal += doc["arguments"][0][0] == request.prompt
    gold = [g for _, gs in workload for g in gs]
    ours_pred = [int(np.argmax(s)) for s in ours]
    theirs_pred = [int(np.argmax(s)) for s in theirs]
    agreement = np.mean([a == b for a, b in zip(ours_pred, theirs_pred)])
    max_delta = max(abs(a - b) for x, y in zip(ours, theirs) for a, b in zip(x, y))
    total_tokens = sum(model.count_tokens(r.prompt) + 1 for r in flat_requests) * 4
    raw = raw_forward_rate(model, flat_requests)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"items: {n_items} (MMLU, 5 HELM subjects, 5-shot first-n), threads: {args.threads}, repeats: {args.repeats}")
    print(f"identical prompt strings: {prompts_equal}/{checked}")
    print(f"predicted-answer agreement: {agreement:.4f} ({sum(a == b for a, b in zip(ours_pred, theirs_pred))}/{n_items}); "
          f"accuracy helmlite {np.mean([p == g for p, g in zip(ours_pred, gold)]):.3f}, lm-eval {np.mean([p == g for p, g in zip(theirs_pred, gold)]):.3f}")
    print(f"max |Δ log-likelihood|: {max_delta:.2e}")
    for tool, values in times.items():
        print(f"{tool:9} wall: median {med[tool]:.1f} s  ({', '.join(f'{v:.1f}' for v in values)})")
    print(f"ratio lm-eval / helmlite: {med['lm-eval'] / med['helmlite']:.2f}x")
    print(f"helmlite tokens encoded: {model.encoded_tokens:,} of {total_tokens:,} prompt+continuation tokens "
          f"({model.encoded_tokens / total_tokens:.1%}); encoded {model.encoded_tokens / times['helmlite'][-1]:.0f} tok/s "
          f"vs raw forward {raw:.0f} tok/s")


if __name__ == "__main__":
    main()
