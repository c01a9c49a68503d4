"""crfm-helm's own scenario inputs on the files the kit reads, as counts and sha256 hashes the tests hold.

* **BOLD.** crfm-helm 0.5.16's ``BOLDScenario(subject=<domain>).get_instances`` reads ``<output>/data/<domain>``
  (downloaded from the BOLD repository when absent), takes each name's first prompt, shuffles the (group, prompt)
  tuples with ``random.seed(0)`` and makes each input ``f"{prompt} "``. The script puts the file helmlite reads
  (``helm/datasets/bold/prompts/<domain>_prompt.json``, through the data mirror) in that place, so HELM downloads
  nothing. HELM's instances carry no group label, so the hash covers the inputs and their order only.
* **BoolQ.** crfm-helm's ``BoolQScenario.get_instances`` reads BoolQ's train and dev files and the contrast-set file.
  The script gives it the dev file and the contrast-set file helmlite reads and an empty train file (BoolQ's train
  split is not obtainable here), with and without ``only_contrast``. Each instance is then given the id HELM's
  ``with_instance_ids`` gives it with the train split present (``id<9427 + k>``, the train split's 9,427 questions
  first) and HELM's own ``ContrastSetsPerturbation.apply`` picks its contrast. The hash covers every dev instance's
  input followed by the perturbed input, in HELM's order (the perturbed input equals the original where there is no
  contrast).

Each line gives the number of inputs and their hash (``helm_prompt_hashes.prompt_hash``: sha256 of the inputs joined
by its separator); ``tests/test_scenarios.py`` holds the values. The temporary folders HELM writes into are removed.

Set-up: crfm-helm 0.5.16 in its own venv (``benchmarks/compare_helm.py``); run with that venv's Python, which imports
helmlite from this checkout to fetch the files (through the mirror, into the checkout's git-ignored
``data/external/``) and for BOLD's domain names::

    HELMLITE_DATA_MIRROR=../shared/data PYTHONPATH=. /tmp/helm-venv/bin/python benchmarks/helm_scenario_hashes.py
"""
from __future__ import annotations

import functools
import os
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


def _helm_boolq(output: Path, only_contrast: bool) -> list:
    """crfm-helm's BoolQ dev instances with the ids HELM gives them when the train split is present."""
    from dataclasses import replace

    from helm.benchmark.scenarios.boolq_scenario import BoolQScenario
    from helm.benchmark.scenarios.scenario import VALID_SPLIT

    from helmlite import data
    from helmlite.scenarios.boolq import BOOLQ, BOOLQ_DEV, HELM_TRAIN_SIZE

    folder = output / "data"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(data.fetch(BOOLQ), folder / "boolq_perturbed.jsonl")
    shutil.copyfile(data.fetch(BOOLQ_DEV), folder / "dev")
    (folder / "train").write_text("", encoding="utf-8")
    instances = BoolQScenario(only_contrast=only_contrast).get_instances(str(output))
    assert all(instance.split == VALID_SPLIT for instance in instances)
    return [replace(instance, id=f"id{HELM_TRAIN_SIZE + k}") for k, instance in enumerate(instances)]


def boolq_inputs(output: Path, only_contrast: bool) -> list[str]:
    """crfm-helm's BoolQ inputs: each dev instance's input, then the input ``ContrastSetsPerturbation`` makes of it."""
    from helm.benchmark.augmentations.contrast_sets_perturbation import ContrastSetsPerturbation

    return [text for instance in _helm_boolq(output, only_contrast)
            for text in (instance.input.text, ContrastSetsPerturbation().apply(instance).input.text)]


def boolq_robust_inputs(output: Path, only_contrast: bool, first: int) -> list[str]:
    """The inputs HELM's robustness perturbation (``MildMixPerturbation``) makes of the first ``first`` instances."""
    from helm.benchmark.augmentations.mild_mix_perturbation import MildMixPerturbation

    cwd = os.getcwd()
    os.chdir(output)  # HELM's perturbation writes its benchmark_output/ here
    try:
        return [MildMixPerturbation().apply(instance).input.text for instance in _helm_boolq(output, only_contrast)[:first]]
    finally:
        os.chdir(cwd)


def main() -> None:
    from helmlite.scenarios.bold import DOMAINS

    for name, make in [*((f"bold {d}", functools.partial(bold_inputs, d)) for d in DOMAINS),
                       *((f"boolq only_contrast={c}", functools.partial(boolq_inputs, only_contrast=c)) for c in (False, True)),
                       ("boolq robustness, the first 100 dev instances", functools.partial(boolq_robust_inputs, only_contrast=False, first=100)),
                       ("boolq robustness, only_contrast=True", functools.partial(boolq_robust_inputs, only_contrast=True, first=64))]:
        with tempfile.TemporaryDirectory(prefix="helm-scenario-") as output:
            inputs = make(Path(output))
        print(f"{name}: {len(inputs)} inputs, sha256 {prompt_hash(inputs)}")


if __name__ == "__main__":
    main()
