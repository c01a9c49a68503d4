"""``helmlite prompts`` under ``adapter.selection: helm_compat`` equals crfm-helm 0.5.16's prompts, byte for byte.

Expected values: crfm-helm's own prompts, written by ``helm-run --dry-run`` (no model call) for each run spec
and hashed by ``benchmarks/helm_prompt_hashes.py`` (its docstring gives the set-up), on the same mirrored data:
the number of prompts and the sha256 of the prompts in crfm-helm's request order, per train trial. The run
specs are HELM's ``method=multiple_choice_joint`` ones; truncation is decided by the smollm2-135m tokenizer
(no prompt here is near its context)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helmlite.evaluation.instances import adapted_prompts
from helmlite.evaluation.runspec import RunSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from helm_prompt_hashes import prompt_hash  # noqa: E402

def hashed_prompts(spec: RunSpec, variant: str = "identity") -> tuple[int, str]:
    """(number, sha256) of ``helmlite prompts``' prompts for ``spec`` — what crfm-helm's values below count and hash."""
    prompts = [prompt for _, prompt in adapted_prompts(spec, variant=variant)]
    return len(prompts), prompt_hash(prompts)


# (helmlite scenario, args, max instances, train trial) → (prompts, sha256) from crfm-helm 0.5.16, 2026-12-01
CRFM_HELM = {
    ("truthfulqa", (), 1000, 0): (654, "22d2c1843a03c02d26d60fa2227ad065053c0c2e97c2d1d63c881fcb562f944f"),
    ("bbq", (("category", "Age"),), 200, 0): (200, "8835c176a048d57cd7f73816cf41cd241d3ba36749b9e1514a89748b65779f31"),
    ("bbq", (("category", "Religion"),), 200, 0): (200, "3140ce1b50fe001123390b6bcd2dc8b879919753175c703a595f24b7abe1282b"),
    # MMLU with the validation split HELM evaluates beside test (val, then test: 11 + 100), 2026-12-05
    ("mmlu", (("subject", "us_foreign_policy"),), 1000, 0): (111, "3d88c09d3bda74f3f385d36bcb98550b8e8bc148979279b830b04ab2f080c645"),
    ("mmlu", (("subject", "us_foreign_policy"),), 1000, 1): (111, "ae29ae0a173aba2bcf7ea8785d7e6f434a84ba50897465898c460e97ebf2ff57"),
    ("mmlu", (("subject", "us_foreign_policy"),), 1000, 2): (111, "edd68128068ade141433dd4d9b74a50feded21c97ce1f927d5052a8bd4cda5ad"),
    # a validation file with CRLF line endings; questions spanning several lines (8 + 100, 12 + 114 evaluated)
    ("mmlu", (("subject", "college_chemistry"),), 1000, 0): (108, "d162e007edf9b15dca27b47726304e9563fc87d001b7c9711dda4d5419597f0c"),
    ("mmlu", (("subject", "econometrics"),), 1000, 0): (126, "15b2bc10ab8ffb1fc6cdce56903cf70c9dd68e5ca5989aad9e4f9409a84d919c"),
}


# HELM's robustness perturbation (``data_augmentation=robustness``: MildMixPerturbation of the evaluated instances),
# the perturbed prompts alone, in crfm-helm's order: (prompts, sha256) from crfm-helm 0.5.16, 2026-12-02
CRFM_HELM_ROBUSTNESS = {
    ("mmlu", (("subject", "us_foreign_policy"),), 1000): (111, "08442affd65df50f00070e0b123bb122336563bc80afad21d7f65dad6645348d"),  # with val, 2026-12-05
    ("bbq", (("category", "Age"),), 200): (200, "ff912db9abc929e07607fb2933adaff22342e4e1b17d67a5fa3bce5b6354a484"),
}


@pytest.mark.parametrize("key", list(CRFM_HELM_ROBUSTNESS), ids=[k[0] for k in CRFM_HELM_ROBUSTNESS])
def test_perturbed_prompts_are_crfm_helms(mirrored_cache, key):
    """Under helm_compat the robustness perturbation is seeded as crfm-helm seeds it (``Random("id<k>")``, the
    instance's running number in load order), so the perturbed prompts are HELM's byte for byte."""
    name, args, max_instances = key
    spec = RunSpec.from_dict({"scenario": name, "model": "smollm2-135m", "args": dict(args), "max_instances": max_instances,
                              "perturbations": ["robustness"], "adapter": {"method": "multiple_choice_joint", "selection": "helm_compat"}})
    assert hashed_prompts(spec, "robustness") == CRFM_HELM_ROBUSTNESS[key]


@pytest.mark.parametrize("key", list(CRFM_HELM), ids=[f"{k[0]}-{dict(k[1])}-trial{k[3]}" for k in CRFM_HELM])
def test_prompts_are_crfm_helms(mirrored_cache, key):
    name, args, max_instances, trial = key
    spec = RunSpec.from_dict({"scenario": name, "model": "smollm2-135m", "args": dict(args), "max_instances": max_instances,
                              "adapter": {"method": "multiple_choice_joint", "selection": "helm_compat", "seed": trial}})
    assert hashed_prompts(spec) == CRFM_HELM[key]


# RAFT with HELM's task instructions and field order (the mirror's prompt_construction_settings.jsonl placed where
# crfm-helm's RAFTScenario reads it, its ``datasets.load_dataset("ought/raft")`` answered from the mirror's train.csv),
# HELM's generation adapter spec: (prompts, sha256) from crfm-helm 0.5.16's dry run, 2026-12-05
# (``benchmarks/helm_prompt_hashes.py --only raft``)
CRFM_HELM_RAFT = {
    "ade_corpus_v2": (40, "8f38df04828927cafa4b48e9c2d03d2bb4fb4cade291f9e95bac85b9e6b94ca5"),
    "banking_77": (40, "2214fc5c150b39c45d6e1b011b7f5bd1ffe22c3e01f91cbdbf1fff27954e3d36"),
    "one_stop_english": (40, "d79a80b922ce4ed172759088aae371860950bda484aa0ac9498c47e398d2e411"),
    "terms_of_service": (40, "56338b0d7f326b60fe33573b4ef85e7ae6ee685809ef4c97087ff8d66c12d1e3"),
    "tai_safety_research": (40, "a4dbfb5bd501f6e9659cbe4e63e7a3f0a371595405051fb4f27931af13e0e6ed"),
}


@pytest.mark.parametrize("subset", list(CRFM_HELM_RAFT))
def test_raft_prompts_carry_helms_instructions(mirrored_cache, subset):
    """RAFT's default (HELM's generation spec) under helm_compat: crfm-helm's prompts byte for byte — the subset's
    instructions, five in-context examples, then the instance, fields in the settings file's order."""
    spec = RunSpec.from_dict({"scenario": "raft", "model": "smollm2-135m", "args": {"subset": subset}, "max_instances": 1000,
                              "adapter": {"selection": "helm_compat"}})
    assert hashed_prompts(spec) == CRFM_HELM_RAFT[subset]
    assert adapted_prompts(spec)[0][1].startswith(spec.adapter.instructions + "\n\n")


def test_raft_adapter_spec_is_helms(mirrored_cache):
    """Every field of crfm-helm 0.5.16's ``get_raft_spec`` (``get_generation_adapter_spec(instructions,
    input_noun=None, output_noun="Label", max_tokens=30)``, copied here from its source): generation, no input prefix,
    a newline after the input, "Label: " (helmlite writes "Label:" and adds the space before the answer, as the byte
    test above shows), a newline after each example, 5 examples, one greedy output of at most 30 tokens stopped at a
    newline; quasi-exact match the main metric (``RAFTScenario.get_metadata``)."""
    from helmlite.scenarios import scenario
    from helmlite.scenarios.raft import prompt_settings

    spec = RunSpec.from_dict({"scenario": "raft", "model": "m", "args": {"subset": "overruling"}})
    adapter = spec.adapter
    assert (adapter.method, adapter.input_prefix, adapter.input_suffix, adapter.output_prefix, adapter.output_suffix,
            adapter.max_train_instances, adapter.max_tokens, adapter.stop_sequences, adapter.temperature) == (
        "generation", "", "\n", "Label:", "\n", 5, 30, ("\n",), 0.0)
    assert adapter.instructions == prompt_settings("overruling")[1] and adapter.instructions.startswith("In law, an overruling")
    assert scenario("raft").main_metric == "quasi_exact_match"
