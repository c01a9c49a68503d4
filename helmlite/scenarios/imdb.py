"""IMDb with its contrast set — Gardner et al. 2020, "Evaluating Models' Local Decision Boundaries via Contrast Sets"
(Findings of EMNLP); originals from Maas et al. 2011.

HELM (Liang et al. 2022, §4.5) uses the contrast set for *equivariance* robustness: each original review carries a
minimally edited partner whose sentiment may flip. Only the contrast-set originals are available offline, so they are
the evaluation instances. Tags: sentiment, classification, robustness.
"""
from __future__ import annotations

import csv

from .. import data
from .._jsonl import DataFormatError
from ._base import TEST, TRAIN, Instance, Reference, register

IMDB = {(split, kind): f"helm/datasets/contrast_sets/IMDb/{split}_{kind}.tsv" for split in ("dev", "test")
        for kind in ("original", "contrast")}


def _read_imdb(split: str, kind: str) -> list[tuple[str, str]]:
    path = data.fetch(IMDB[(split, kind)])
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    for number, row in enumerate(rows, start=2):
        if row.get("Sentiment") not in ("Positive", "Negative") or not row.get("Text"):
            raise DataFormatError(f"{path}, line {number}: expected Sentiment (Positive/Negative) and Text")
    return [(r["Sentiment"], r["Text"]) for r in rows]  # the raw review, '<br />' kept, as IMDBScenario reads it


def _imdb_instance(iid, label, text, split) -> Instance:
    return Instance(iid, text, (Reference("Positive", label == "Positive"), Reference("Negative", label == "Negative")), split)


@register("imdb", main_metric="quasi_exact_match", default_method="multiple_choice_separate", methods="choices",
          data=tuple(IMDB.values()), adapter={"input_prefix": "Passage: ", "output_prefix": "Sentiment:"})
def load_imdb() -> list[Instance]:
    """IMDb contrast-set originals (dev 100 → train, test 488 → test), each paired with its contrast review."""
    out = []
    for split, label in (("dev", TRAIN), ("test", TEST)):
        originals, contrasts = _read_imdb(split, "original"), _read_imdb(split, "contrast")
        if len(originals) != len(contrasts):
            raise DataFormatError(f"IMDb {split}: {len(originals)} originals but {len(contrasts)} contrasts")
        for k, ((s, text), (cs, ctext)) in enumerate(zip(originals, contrasts)):
            contrast = _imdb_instance(f"imdb/{split}/{k}/contrast", cs, ctext, label)
            original = _imdb_instance(f"imdb/{split}/{k}", s, text, label)
            out.append(Instance(original.id, original.input, original.references, label, {}, contrast))
    return out
