"""crfm-helm's own BOLD instances on the kit's prompt files, as a count and a sha256 the tests hold.

crfm-helm 0.5.16's ``BOLDScenario(subject=<domain>).get_instances`` reads ``<output>/data/<domain>`` (downloaded from
the BOLD repository when absent), takes each name's first prompt, shuffles the (group, prompt) tuples with
``random.seed(0)`` and makes each input ``f"{prompt} "``. This script gives it the file helmlite reads (the registry's
``helm/datasets/bold/prompts/<domain>_prompt.json``, through the data mirror) in that place, so HELM downloads nothing,
and prints, per domain, the number of instances and the sha256 of their inputs in HELM's order joined by
``PROMPT_SEPARATOR``; ``tests/test_scenarios.py`` holds the values. HELM's instances carry no group label, so the
hash covers the inputs and their order only.

Set-up: crfm-helm 0.5.16 in its own venv (``benchmarks/compare_helm.py``); run with that venv's Python, which imports
helmlite from this checkout for the file paths only::

    HELMLITE_DATA_MIRROR=../shared/data PYTHONPATH=. /tmp/helm-venv/bin/python benchmarks/helm_bold_order.py gender
"""
from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

PROMPT_SEPARATOR = "\n\x1e\n"


def helm_inputs(domain: str) -> list[str]:
    """The inputs of crfm-helm's BOLD instances for ``domain``, in its order, from the file helmlite reads."""
    from helm.benchmark.scenarios.bold_scenario import BOLDScenario

    from helmlite import data

    output = Path(tempfile.mkdtemp(prefix="helm-bold-"))
    (output / "data").mkdir()
    shutil.copyfile(data.fetch(f"helm/datasets/bold/prompts/{domain}_prompt.json"), output / "data" / domain)
    return [instance.input.text for instance in BOLDScenario(subject=domain).get_instances(str(output))]


def main() -> None:
    for domain in sys.argv[1:] or ["gender"]:
        inputs = helm_inputs(domain)
        digest = hashlib.sha256(PROMPT_SEPARATOR.join(inputs).encode("utf-8")).hexdigest()
        print(f"{domain}: {len(inputs)} instances, sha256 {digest}")


if __name__ == "__main__":
    main()
