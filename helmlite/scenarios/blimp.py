"""BLiMP — Warstadt et al. 2020, "BLiMP: The Benchmark of Linguistic Minimal Pairs for English" (TACL).

HELM (Liang et al. 2022, §5.2) scores language models on minimal pairs: the model is right when it
assigns the grammatical sentence a higher log-probability than the ungrammatical one. Each instance
holds the two sentences as references (the grammatical one correct) for the ``language_modeling``
method. Tags: linguistic knowledge, language modelling.
"""
from __future__ import annotations

import io
import json
import zipfile

from .. import data
from .._jsonl import DataFormatError
from ._base import TEST, Instance, Reference, register
from ..errors import UserError

FILE = "helm/datasets/blimp/BLiMP.zip"


def paradigms() -> list[str]:
    with zipfile.ZipFile(data.fetch(FILE)) as archive:
        return sorted(n[len("data/"):-len(".jsonl")] for n in archive.namelist() if n.endswith(".jsonl"))


@register("blimp", main_metric="exact_match", default_method="language_modeling", methods="language_modeling", data=(FILE,))
def load(paradigm: str = "anaphor_gender_agreement") -> list[Instance]:
    """BLiMP, one paradigm (1,000 minimal pairs)."""
    path = data.fetch(FILE)
    with zipfile.ZipFile(path) as archive:
        name = f"data/{paradigm}.jsonl"
        if name not in archive.namelist():
            raise UserError(f"blimp: unknown paradigm {paradigm!r} (see helmlite.scenarios.blimp.paradigms())")
        lines = io.TextIOWrapper(archive.open(name), encoding="utf-8").read().splitlines()
    out = []
    for number, line in enumerate(lines, start=1):
        try:
            obj = json.loads(line)
            good, bad = obj["sentence_good"], obj["sentence_bad"]
        except (json.JSONDecodeError, KeyError) as error:
            raise DataFormatError(f"{path}:{name}, line {number}: expected JSON with sentence_good/sentence_bad ({error})") from None
        out.append(Instance(f"blimp/{paradigm}/{number - 1}", "", (Reference(good, True), Reference(bad, False)), TEST,
                            {"paradigm": paradigm}))
    return out
