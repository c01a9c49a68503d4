"""Recipe for the lm-eval import fixtures under ``tests/data/lm_eval/``: real ``--log_samples`` output, two models, 10 MMLU items.

Runs lm-evaluation-harness (the version pinned in ``benchmarks/requirements.txt``) through its own command
line, offline, on a local custom task over the mirror's MMLU ``us_foreign_policy`` files (5-shot with the
first five dev questions, as ``compare_lm_eval.py`` does), in the cloze form lm-eval uses for ARC and
HellaSwag: the choices are the answer texts, so ``acc`` (largest log-likelihood) and ``acc_norm``
(largest log-likelihood per byte) differ. ``--limit 10`` keeps the first ten test questions. For each
embedded model it copies lm-eval's ``samples_<task>_<date>.jsonl`` and ``results_<date>.json`` into
``tests/data/lm_eval/<model>/``.

lm-eval needs ``datasets``/``evaluate`` versions helmlite does not pin, so it goes into its own venv that
borrows torch and transformers from helmlite's (no second torch download)::

    python -m venv /tmp/lmeval-venv
    echo "$PWD/.venv/lib/python3.11/site-packages" > /tmp/lmeval-venv/lib/python3.11/site-packages/zz_helmlite.pth
    /tmp/lmeval-venv/bin/pip install -r benchmarks/requirements.txt
    HELMLITE_DATA_MIRROR=../shared/data .venv/bin/python benchmarks/lm_eval_import_fixture.py --lm-eval /tmp/lmeval-venv/bin/lm-eval
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from compare_lm_eval import lm_eval_task  # benchmarks/ is on sys.path when run as a script
from fixture_args import fixture_parser
from helmlite.models import prepare


def main() -> None:
    args = fixture_parser(__doc__.splitlines()[0], "lm-eval", "/tmp/lmeval-venv/bin/lm-eval", "lm_eval").parse_args()
    work = Path(tempfile.mkdtemp(prefix="helmlite-lmeval-"))
    task = lm_eval_task(work, args.subject, "cloze")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "HF_DATASETS_CACHE": str(work / "hf-datasets")}
    for model in args.models:
        path = prepare(model)
        output = work / "out" / model
        subprocess.run([args.lm_eval, "run", "--model", "hf", "--model_args", f"pretrained={path},dtype=float32",
                        "--tasks", task, "--include_path", str(work), "--limit", str(args.limit), "--device", "cpu",
                        "--batch_size", "4", "--log_samples", "--output_path", str(output), "--seed", "0"],
                       check=True, env=env)
        target = Path(args.out) / model
        target.mkdir(parents=True, exist_ok=True)
        for old in [*target.glob("samples_*.jsonl"), *target.glob("results_*.json")]:
            old.unlink()  # one run per model folder
        for file in [*output.rglob(f"samples_{task}_*.jsonl"), *output.rglob("results_*.json")]:
            shutil.copyfile(file, target / file.name)
            print(f"{file} -> {target / file.name}")


if __name__ == "__main__":
    main()
