"""crfm-helm's own perturbation outputs on the kit's texts, as sha256 hashes the tests hold.

For HELM's robustness perturbation (``ROBUSTNESS_PERTURBATION_SPECS``: ``MildMixPerturbation``), for each of HELM's fairness perturbations as its fairness run configures them (``FAIRNESS_PERTURBATION_SPECS``
in ``run_expander.py``: dialect SAE → AAVE at prob 1, gender pronouns male → female at prob 1, person names
White → Black American first names at prob 1 with gender kept) and for its contraction step, this script
applies crfm-helm 0.5.16's own class to ``N_TEXTS`` inputs — IMDb contrast-set test reviews, each with the
reference "Positive" or "Negative" and, for the names, the reference "<first name of the review> liked it." —
as HELM does (``perturbation.apply(instance)``: the random generator seeded with the instance id, here
``id<k>``; references first). The word lists are the ones helmlite reads (:data:`helmlite.evaluation.perturbations.DIALECT`,
:data:`~helmlite.evaluation.perturbations.PERSON_NAMES`: HELM's own where the registry can fetch them, else the mirror's
stand-ins), passed to HELM's classes as their mapping/name files, so the comparison is of the algorithms.
It prints, per perturbation, how many texts it changed and the sha256 of every output (inputs, then
references, per instance, joined by ``PROMPT_SEPARATOR``); ``tests/test_perturbations.py`` holds the values.

Set-up: crfm-helm 0.5.16 in its own venv (``benchmarks/compare_helm.py``); run with that venv's Python,
which imports helmlite from this checkout for the texts and word-list paths only::

    HELMLITE_DATA_MIRROR=../shared/data PYTHONPATH=. /tmp/helm-venv/bin/python benchmarks/helm_perturbation_hashes.py
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile

N_TEXTS = 200
PROMPT_SEPARATOR = "\n\x1e\n"


def texts() -> list[tuple[str, tuple[str, ...]]]:
    """(input, references) of the comparison: the first ``N_TEXTS`` IMDb contrast-set test reviews."""
    from helmlite.scenarios import scenario

    reviews = [i for i in scenario("imdb").load() if i.split == "test"][:N_TEXTS]
    out = []
    for instance in reviews:
        first_word = instance.input.split()[0].strip(".,!?\"'")
        out.append((instance.input, (instance.first_correct, f"{first_word} liked it.")))
    return out


def digest(outputs: list[str]) -> str:
    return hashlib.sha256(PROMPT_SEPARATOR.join(outputs).encode("utf-8")).hexdigest()


def main() -> None:
    from helm.benchmark.augmentations.contraction_expansion_perturbation import ContractionPerturbation
    from helm.benchmark.augmentations.dialect_perturbation import DialectPerturbation
    from helm.benchmark.augmentations.gender_perturbation import GenderPerturbation
    from helm.benchmark.augmentations.mild_mix_perturbation import MildMixPerturbation
    from helm.benchmark.augmentations.person_name_perturbation import PersonNamePerturbation
    from helm.benchmark.scenarios.scenario import Input, Instance, Output, Reference

    from helmlite.evaluation import perturbations

    items = texts()
    os.chdir(tempfile.mkdtemp(prefix="helm-perturbations-"))  # HELM's classes create benchmark_output/ here
    dialect_file = str(perturbations._first_available(perturbations.DIALECT)[0])
    names_file = str(perturbations._first_available(perturbations.PERSON_NAMES)[0])
    helm = {
        "contraction": ContractionPerturbation(),
        "robustness": MildMixPerturbation(),  # ROBUSTNESS_PERTURBATION_SPECS: lower-case, contract, misspell, spaces
        "dialect": DialectPerturbation(prob=1.0, source_class="SAE", target_class="AAVE", mapping_file_path=dialect_file),
        "gender": GenderPerturbation(mode="pronouns", prob=1.0, source_class="male", target_class="female"),
        "race": PersonNamePerturbation(prob=1.0, source_class={"race": "white_american"},
                                       target_class={"race": "black_american"}, name_file_path=names_file,
                                       person_name_type="first_name", preserve_gender=True),
    }
    results = {}
    for name, perturbation in helm.items():
        outputs, changed = [], 0
        for k, (text, references) in enumerate(items):
            instance = Instance(input=Input(text=text), references=[Reference(Output(text=r), tags=[]) for r in references],
                                split="test", id=f"id{k}")
            perturbed = perturbation.apply(instance)
            outputs += [perturbed.input.text] + [r.output.text for r in perturbed.references]
            changed += perturbed.input.text != text
        results[name] = {"texts": len(items), "inputs_changed": changed, "sha256": digest(outputs)}
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
