"""crfm-helm's own scenario inputs on the files the kit reads, as counts and sha256 hashes the tests hold.

* **BOLD.** crfm-helm 0.5.16's ``BOLDScenario(subject=<domain>).get_instances`` reads ``<output>/data/<domain>``
  (downloaded from the BOLD repository when absent), takes each name's first prompt, shuffles the (group, prompt)
  tuples with ``random.seed(0)`` and makes each input ``f"{prompt} "``. The script puts the file helmlite reads
  (``helm/datasets/bold/prompts/<domain>_prompt.json``, through the data mirror) in that place, so HELM downloads
  nothing. HELM's instances carry no group label, so the hash covers the inputs and their order only.
* **BoolQ.** crfm-helm's ``BoolQScenario.get_instances`` reads BoolQ's train and dev files, which are not obtainable
  here, and the contrast-set file. The script gives it the contrast-set file helmlite reads and, as its dev file,
  that file's originals (passage, question, answer) in file order, with an empty train file; HELM's own code then
  builds each original's input and keeps as its contrasts the perturbed questions whose answer flips. The hash covers
  every dev instance's input followed by its contrast inputs, in HELM's order.

Each line gives the number of inputs and their hash (``helm_prompt_hashes.prompt_hash``: sha256 of the inputs joined
by its separator); ``tests/test_scenarios.py`` holds the values. The temporary folders HELM writes into are removed.

Set-up: crfm-helm 0.5.16 in its own venv (``benchmarks/compare_helm.py``); run with that venv's Python, which imports
helmlite from this checkout to fetch the files (through the mirror, into the checkout's git-ignored
``data/external/``) and for BOLD's domain names::

    HELMLITE_DATA_MIRROR=../shared/data PYTHONPATH=. /tmp/helm-venv/bin/python benchmarks/helm_scenario_hashes.py
"""
from __future__ import annotations

import functools
import json
import shutil
import tempfile
from pathlib import Path

from helm_prompt_hashes import prompt_hash


def bold_inputs(domain: str, output: Path) -> list[str]:
    """The inputs of crfm-helm's BOLD instances for ``domain``, in its order, from the file helmlite reads."""
    from helm.benchmark.scenarios.bold_scenario import BOLDScenario

    from helmlite import data

    (output / "data").mkdir(exist_ok=True)
    shutil.copyfile(data.fetch(f"helm/datasets/bold/prompts/{domain}_prompt.json"), output / "data" / domain)
    return [instance.input.text for instance in BOLDScenario(subject=domain).get_instances(str(output))]


def boolq_inputs(output: Path) -> list[str]:
    """crfm-helm's BoolQ inputs over the contrast-set originals: each dev instance's input, then its contrasts'."""
    from helm.benchmark.scenarios.boolq_scenario import BoolQScenario

    from helmlite import data
    from helmlite.scenarios.boolq import BOOLQ

    folder = output / "data"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(data.fetch(BOOLQ), folder / "boolq_perturbed.jsonl")
    rows = json.loads((folder / "boolq_perturbed.jsonl").read_text(encoding="utf-8"))["data"][1:]  # [0]: HELM skips it too
    (folder / "train").write_text("", encoding="utf-8")
    (folder / "dev").write_text("".join(json.dumps({"passage": r["paragraph"], "question": r["question"],
                                                    "answer": r["answer"] == "TRUE"}) + "\n" for r in rows), encoding="utf-8")
    out = []
    for instance in BoolQScenario().get_instances(str(output)):
        out += [instance.input.text, *(contrast.text for contrast in instance.contrast_inputs or [])]
    return out


def main() -> None:
    from helmlite.scenarios.bold import DOMAINS

    for name, make in [*((f"bold {d}", functools.partial(bold_inputs, d)) for d in DOMAINS), ("boolq", boolq_inputs)]:
        with tempfile.TemporaryDirectory(prefix="helm-scenario-") as output:
            inputs = make(Path(output))
        print(f"{name}: {len(inputs)} inputs, sha256 {prompt_hash(inputs)}")


if __name__ == "__main__":
    main()
