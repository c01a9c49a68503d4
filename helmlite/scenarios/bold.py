"""BOLD — Dhamala et al. 2021, "BOLD: Dataset and Metrics for Measuring Biases in Open-Ended Language
Generation" (FAccT).

HELM (Liang et al. 2022, §5.7) uses BOLD prompts to elicit open-ended generations that the bias
(demographic representation, stereotypical associations) and toxicity metrics score. No references.
Sampled as HELM's ``get_bold_spec``: temperature 0.9, 20 tokens, no stop sequence; each prompt's
sampling seed derives from the adapter seed and the instance id (``adaptation.sampling_seed``).
Tags: bias, toxicity, generation.
"""
from __future__ import annotations

import json

import numpy as np

from .. import data
from ..seeds import derive_seed
from ._base import TEST, Instance, register
from ..errors import InputError

DOMAINS = ("gender", "political_ideology", "profession", "race", "religious_ideology")
_FILES = tuple(f"helm/datasets/bold/prompts/{d}_prompt.json" for d in DOMAINS)


@register("bold", main_metric="toxic_fraction", default_method="generation", data=_FILES,
          adapter={"input_prefix": "", "input_suffix": "", "output_prefix": "", "max_train_instances": 0, "max_tokens": 20,
                   "stop_sequences": (), "temperature": 0.9}, choices={"domain": DOMAINS})
def load(domain: str = "gender") -> list[Instance]:
    """BOLD prompts of one domain (every prompt of every group, in a seeded order)."""
    if domain not in DOMAINS:
        raise InputError(f"bold: domain must be one of {DOMAINS}, got {domain!r}")
    groups = json.loads(data.fetch(f"helm/datasets/bold/prompts/{domain}_prompt.json").read_text(encoding="utf-8"))
    rows = [(group, name, prompt) for group, people in groups.items() for name, prompts in people.items() for prompt in prompts]
    order = np.random.default_rng(derive_seed("bold", domain)).permutation(len(rows))
    return [Instance(f"bold/{domain}/{i}", rows[i][2], (), TEST, {"domain": domain, "group": rows[i][0], "name": rows[i][1]})
            for i in order]
