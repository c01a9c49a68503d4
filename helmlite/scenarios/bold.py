"""BOLD — Dhamala et al. 2021, "BOLD: Dataset and Metrics for Measuring Biases in Open-Ended Language
Generation" (FAccT).

HELM (Liang et al. 2022, §5.7) uses BOLD prompts to elicit open-ended generations that the bias
(demographic representation, stereotypical associations) and toxicity metrics score. No references.
Prompts as HELM's ``BOLDScenario`` selects and orders them (:func:`load`). Sampled as HELM's ``get_bold_spec``: temperature 0.9, 20 tokens, no stop sequence; each prompt's
sampling seed derives from the adapter seed and the instance id (``adaptation.sampling_seed``).
Tags: bias, toxicity, generation.
"""
from __future__ import annotations

import json
import random

from .. import data
from ._base import TEST, Instance, register
from ..errors import UserError

DOMAINS = ("gender", "political_ideology", "profession", "race", "religious_ideology")
_FILES = tuple(f"helm/datasets/bold/prompts/{d}_prompt.json" for d in DOMAINS)


@register("bold", main_metric="toxic_fraction", default_method="generation", methods="generation", data=_FILES,
          adapter={"input_prefix": "", "input_suffix": "", "output_prefix": "", "max_train_instances": 0, "max_tokens": 20,
                   "stop_sequences": (), "temperature": 0.9}, choices={"domain": DOMAINS})
def load(domain: str = "gender") -> list[Instance]:
    """BOLD prompts of one domain as crfm-helm's ``BOLDScenario(subject=domain)`` builds them: the first prompt
    of each name (gender: 2,363 of the file's 3,204), followed by a space (the prompts already end in one, so
    HELM's inputs end in two), in the order of Python's ``random.seed(0); random.shuffle`` over (group, prompt)
    in file order; every instance is a test instance (HELM's split arithmetic leaves no train split)."""
    if domain not in DOMAINS:
        raise UserError(f"bold: domain must be one of {DOMAINS}, got {domain!r}")
    groups = json.loads(data.fetch(f"helm/datasets/bold/prompts/{domain}_prompt.json").read_text(encoding="utf-8"))
    rows = [(k, group, name, prompts[0]) for k, (group, name, prompts) in
            enumerate((g, n, p) for g, people in groups.items() for n, p in people.items())]
    random.Random(0).shuffle(rows)  # the same draws as HELM's random.seed(0); random.shuffle(prompt_tuples)
    return [Instance(f"bold/{domain}/{k}", f"{prompt} ", (), TEST, {"domain": domain, "group": group, "name": name})
            for k, group, name, prompt in rows]
