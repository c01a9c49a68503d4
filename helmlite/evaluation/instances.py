"""Which instances a run evaluates, with which in-context examples and which variants: the test subsample, the
examples every test instance is shown, the perturbed variants, and the prompts they make without a model.

The test subsample and the in-context examples never depend on the model, so every model sees the same
items and examples and comparisons can be paired. With ``adapter.selection="helm_compat"`` (default)
both follow crfm-helm exactly — the subsample is ``np.random.seed(data_seed)`` + ``np.random.choice``
in sampled order (HELM: seed 0), the examples ``random.seed(adapter.seed)`` (HELM's train trial index);
see :func:`helmlite.scenarios.helm_eval_subsample` and :func:`helmlite.evaluation.adaptation.helm_sample_examples`.
With ``"hashed"`` the subsample comes from a generator derived with hashlib from (scenario, arguments,
``data_seed``), kept in file order, and the examples from one derived from (scenario, arguments, ``seed``).
"""
from __future__ import annotations

import inspect
import json

import numpy as np

from .adaptation import adapt, select_examples
from ..models import LanguageModel
from ..models.whitespace import WhitespaceTokens
from .perturbations import perturb_instance
from .runspec import RunError, RunSpec
from ..scenarios import SCENARIO_VARIANTS, TEST, TRAIN, Instance, helm_eval_subsample, scenario
from ..seeds import rng


def load_all(spec: RunSpec, model: LanguageModel) -> list[Instance]:
    """Every instance of the run's scenario, in its loader's order (the model counts tokens for scenarios that size
    their inputs in tokens)."""
    info = scenario(spec.scenario)
    kwargs = dict(spec.args)
    info.check_args(kwargs)
    parameters = inspect.signature(info.load).parameters
    if "count_tokens" in parameters:
        kwargs["count_tokens"] = model.count_tokens
    return info.load(**kwargs)


def load_instances(spec: RunSpec, model: LanguageModel) -> tuple[list[Instance], list[Instance]]:
    """The run's training pool and its (subsampled) test instances."""
    return split(spec, load_all(spec, model))


def split(spec: RunSpec, instances: list[Instance]) -> tuple[list[Instance], list[Instance]]:
    train = [i for i in instances if i.split == TRAIN]
    test = [i for i in instances if i.split == TEST]
    if not test:
        raise RunError(f"scenario {spec.scenario!r} with {dict(spec.args)} has no test instances")
    if spec.max_instances is not None and len(test) > spec.max_instances:
        if spec.adapter.selection == "helm_compat":
            keep = helm_eval_subsample(len(test), spec.max_instances, spec.data_seed)
        else:
            order = rng(spec.scenario, json.dumps(dict(spec.args), sort_keys=True, default=list), spec.data_seed, "instances")
            keep = np.sort(order.choice(len(test), size=spec.max_instances, replace=False))
        test = [test[i] for i in keep]
    return train, test


def in_context_examples(spec: RunSpec, train: list[Instance]) -> list[Instance]:
    """The run's in-context examples (shared by every test instance), per ``spec.adapter.selection``."""
    return select_examples(train, spec.adapter, rng(spec.scenario, json.dumps(dict(spec.args), sort_keys=True, default=list),
                                                    spec.adapter.seed, "in-context examples"))


def adapted_prompts(spec: RunSpec, model: LanguageModel | None = None, variant: str = "identity") -> list[tuple[str, str]]:
    """``(instance id, prompt)`` for every (subsampled) test instance of ``spec`` without running a model —
    HELM's dry run, lm-eval's ``--write_out`` — as given or under one of the spec's perturbations (``variant``).
    With no ``model`` a whitespace stand-in counts tokens, so nothing is truncated and scenarios that size inputs in
    tokens count words instead. For separate multiple choice and ranking the prompt is the text before the scored
    continuation."""
    model = model or WhitespaceTokens()
    if variant != "identity" and variant not in spec.perturbations:
        raise RunError(f"prompts: the run has no perturbation {variant!r} (it has {list(spec.perturbations) or 'none'})")
    _, examples, variant_sets = test_examples_variants(spec, model)
    return [(instance.id, adapt(instance, examples, spec.adapter, model).prompt) for instance in variant_sets[variant]
            if instance is not None]


def test_examples_variants(spec: RunSpec, model: LanguageModel, instances: list[Instance] | None = None
                           ) -> tuple[list[Instance], list[Instance], dict]:
    """The run's test instances, its in-context examples and the test set's variants (perturbations seeded by
    :func:`helm_perturbation_seeds` over the scenario's whole load order); ``instances``: the scenario's instances
    as :func:`load_all` gives them, when the caller has them already (the planner, which plans many runs of one
    scenario)."""
    instances = load_all(spec, model) if instances is None else instances
    train, test = split(spec, instances)
    return test, in_context_examples(spec, train), variants(spec, test, helm_perturbation_seeds(spec, instances))


def helm_perturbation_seeds(spec: RunSpec, instances: list[Instance]) -> dict[str, str] | None:
    """Under ``adapter.selection: helm_compat``, each instance's perturbation seed as crfm-helm's: HELM seeds a
    perturbation's ``Random`` with the instance's id, ``id<k>``, its running number over the scenario's instances in
    load order (``with_instance_ids``; ``Perturbation.get_rng``). That is HELM's own seed wherever the loader lists
    the instances in HELM's order (MMLU's dev, val, test; BBQ per category: the perturbed prompts are tested against
    ``helm-run --dry-run``); a loader that cannot list them all (BoolQ, whose train split is absent) gives HELM's id
    in ``metadata["helm_id"]``. None under ``hashed`` selection (a hash of the instance id and the perturbation
    seeds it)."""
    if spec.adapter.selection != "helm_compat":
        return None
    return {instance.id: instance.metadata.get("helm_id", f"id{k}") for k, instance in enumerate(instances)}


def variants(spec: RunSpec, test: list[Instance], seeds: dict[str, str] | None = None) -> dict[str, list[Instance | None]]:
    """The test set as given and under each requested perturbation or scenario-supplied variant (contrast,
    baseline; None where an instance has none); ``seeds``: each instance's perturbation seed
    (:func:`helm_perturbation_seeds`; :func:`helmlite.evaluation.perturbations.perturb_instance` makes each)."""
    variants: dict[str, list[Instance | None]] = {"identity": list(test)}
    for name in spec.perturbations:
        if name in SCENARIO_VARIANTS:
            variants[name] = [getattr(i, SCENARIO_VARIANTS[name]) for i in test]
        else:
            variants[name] = [perturb_instance(i, name, seeds[i.id] if seeds else None) for i in test]
    return variants
