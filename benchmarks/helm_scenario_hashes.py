"""crfm-helm's own scenario inputs on the files the kit reads, as counts and sha256 hashes the tests hold.

* **BOLD.** crfm-helm 0.5.16's ``BOLDScenario(subject=<domain>).get_instances`` reads ``<output>/data/<domain>``
  (downloaded from the BOLD repository when absent), takes each name's first prompt, shuffles the (group, prompt)
  tuples with ``random.seed(0)`` and makes each input ``f"{prompt} "``. The script puts the file helmlite reads
  (``helm/datasets/bold/prompts/<domain>_prompt.json``, through the data mirror) in that place, so HELM downloads
  nothing. HELM's instances carry no group label, so the hash covers the inputs and their order only.
* **BoolQ.** HELM's BoolQ loader needs the full BoolQ train/dev files, which are not obtainable here; its input is
  ``BoolQScenario.get_context(passage, question)``. The script applies that function to every contrast-set original
  helmlite evaluates and to each original's flipping perturbed questions (the contrasts HELM keeps), in file order.

Each line gives the number of inputs and the sha256 of them joined by ``PROMPT_SEPARATOR``;
``tests/test_scenarios.py`` holds the values.

Set-up: crfm-helm 0.5.16 in its own venv (``benchmarks/compare_helm.py``); run with that venv's Python, which imports
helmlite from this checkout for the file paths only::

    HELMLITE_DATA_MIRROR=../shared/data PYTHONPATH=. /tmp/helm-venv/bin/python benchmarks/helm_scenario_hashes.py
"""
from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path

PROMPT_SEPARATOR = "\n\x1e\n"


def bold_inputs(domain: str) -> list[str]:
    """The inputs of crfm-helm's BOLD instances for ``domain``, in its order, from the file helmlite reads."""
    from helm.benchmark.scenarios.bold_scenario import BOLDScenario

    from helmlite import data

    output = Path(tempfile.mkdtemp(prefix="helm-bold-"))
    (output / "data").mkdir()
    shutil.copyfile(data.fetch(f"helm/datasets/bold/prompts/{domain}_prompt.json"), output / "data" / domain)
    return [instance.input.text for instance in BOLDScenario(subject=domain).get_instances(str(output))]


def boolq_inputs() -> list[str]:
    """crfm-helm's BoolQ input for each contrast-set original, then for each of its perturbed questions whose answer
    flips (HELM's contrasts), in file order."""
    from helm.benchmark.scenarios.boolq_scenario import BoolQScenario

    from helmlite import data
    from helmlite.scenarios.boolq import BOOLQ, _helm_contrast_questions

    rows = json.loads(data.fetch(BOOLQ).read_text(encoding="utf-8"))["data"]
    out = []
    for row in (r for r in rows if r.get("title") != "Title"):  # the file's first entry is a schema template
        for question in [row["question"], *(p["perturbed_q"] for p in _helm_contrast_questions(row))]:
            out.append(BoolQScenario.get_context(row["paragraph"], question).text)
    return out


def main() -> None:
    from helmlite.scenarios.bold import DOMAINS

    for name, inputs in [*((f"bold {d}", bold_inputs(d)) for d in DOMAINS), ("boolq", boolq_inputs())]:
        digest = hashlib.sha256(PROMPT_SEPARATOR.join(inputs).encode("utf-8")).hexdigest()
        print(f"{name}: {len(inputs)} inputs, sha256 {digest}")


if __name__ == "__main__":
    main()
