"""GSM8K (Cobbe et al. 2021): grade-school maths word problems; the final number after ``####``, exact match on it.

HELM (Liang et al. 2022, §5.3) includes it as a targeted reasoning evaluation. Tags: reasoning, generation.
"""
from __future__ import annotations

import re

import numpy as np

from .. import data
from .._jsonl import DataFormatError, read_jsonl, require
from ..seeds import derive_seed
from ._base import TEST, TRAIN, Instance, Reference, register

GSM8K = "helm/datasets/gsm8k/test.jsonl"


def gsm8k_final_number(text: str) -> str | None:
    """The number after GSM8K's ``####`` marker (commas removed), or None."""
    match = re.search(r"####\s*(-?[\d,\.]+)", text)
    return match.group(1).replace(",", "").rstrip(".") if match else None


@register("gsm8k", main_metric="final_number_match", default_method="generation", methods="generation", data=(GSM8K,),
          adapter={"input_prefix": "Q: ", "output_prefix": "A:", "max_tokens": 200, "stop_sequences": ("\n\n", "Q:"),
                   "max_train_instances": 3})
def load_gsm8k(train_size: int = 50) -> list[Instance]:
    """GSM8K test problems; a seeded ``train_size`` (with worked solutions) supply in-context examples."""
    path = data.fetch(GSM8K)
    rows = list(read_jsonl(path))
    train = set(np.random.default_rng(derive_seed("gsm8k", "split")).choice(len(rows), size=train_size, replace=False).tolist())
    out = []
    for k, (number, obj) in enumerate(rows):
        where = f"{path}, line {number}"
        solution = require(obj, "answer", where)
        final = gsm8k_final_number(solution)
        if final is None:
            raise DataFormatError(f"{where}: field 'answer' has no '#### <number>' final answer")
        is_train = k in train
        reference = solution.replace("####", "The answer is") if is_train else final
        out.append(Instance(f"gsm8k/{k}", require(obj, "question", where), (Reference(reference, True),),
                            TRAIN if is_train else TEST, {"final_answer": final}))
    return out
