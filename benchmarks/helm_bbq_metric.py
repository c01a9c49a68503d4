"""crfm-helm's own BBQ numbers for fixed prediction patterns: the expected values of tests/test_bbq_helm.py.

Runs crfm-helm 0.5.16's ``BBQScenario`` (``subject=<category>``, the mirror's file placed where HELM would
download it) and its ``BBQMetric`` on the 1,000 test instances, with completions given by
:func:`completion` — a pattern of letters, invalid tokens ("X") and empty completions per test position, so
that every branch of ``BBQMetric`` is reached — and prints, per category and pattern, HELM's
``bbq_accuracy``, ``bbq_metric_ambiguous_bias`` and ``bbq_metric_unambiguous_bias`` as JSON, plus each test
instance's letters (correct, target, non-target, unknown) so that helmlite's answer roles can be compared item
by item. Nothing here is imported by the kit; the test holds the printed numbers.

Usage (the crfm-helm venv of ``benchmarks/compare_helm.py``)::

    HELMLITE_DATA_MIRROR=../shared/data /tmp/helm-venv/bin/python benchmarks/helm_bbq_metric.py > /tmp/helm_bbq.json
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

CATEGORIES = ("Age", "Religion")
PATTERNS = ("mixed", "always_a", "target_on_negative")


def completion(pattern: str, k: int, letters: dict) -> str:
    """The completion text for test position ``k`` (a generated token with its leading space): ``mixed`` cycles
    A/B/C, with every 11th an invalid token (" X"), every 13th empty ("") and every 17th only whitespace (" ");
    ``always_a`` answers A; ``target_on_negative`` names the target on negative questions and the non-target on
    the others (A where HELM recorded none)."""
    if pattern == "mixed":
        return "" if k % 13 == 0 else " " if k % 17 == 0 else " X" if k % 11 == 0 else " " + "ABC"[(7 * k + k // 3) % 3]
    if pattern == "always_a":
        return " A"
    return " " + ((letters["target"] if letters["negative"] else letters["non_target"]) or "A")


def main() -> None:
    from helm.benchmark.adaptation.request_state import RequestState
    from helm.benchmark.metrics.bbq_metrics import BBQMetric
    from helm.benchmark.scenarios.bbq_scenario import BBQScenario
    from helm.common.request import GeneratedOutput, Request, RequestResult

    mirror = Path(os.environ["HELMLITE_DATA_MIRROR"]) / "helm" / "datasets" / "bbq"
    out: dict = {"source": "crfm-helm 0.5.16 BBQScenario + BBQMetric", "patterns": {}, "letters": {}}
    for category in CATEGORIES:
        work = Path(tempfile.mkdtemp(prefix="helm-bbq-"))
        (work / "data").mkdir()
        shutil.copy(mirror / f"{category}.jsonl", work / "data" / category)  # HELM's download target: no download
        test = [i for i in BBQScenario(subject=category).get_instances(str(work)) if i.split == "test"]
        shutil.rmtree(work)
        letters = []
        for instance in test:
            tags = instance.references[0].tags
            letters.append({"correct": tags[-4], "target": tags[-3], "non_target": tags[-2], "unknown": tags[-1],
                            "negative": "negative" in tags, "ambiguous": "ambiguous" in tags})
        out["letters"][category] = letters
        for pattern in PATTERNS:
            states = [RequestState(instance=instance, reference_index=None, request_mode=None, train_trial_index=0,
                                   output_mapping=None, request=Request(model="x/y", model_deployment="x/y", prompt=""),
                                   result=RequestResult(success=True, embedding=[], completions=[
                                       GeneratedOutput(text=completion(pattern, k, letters[k]), logprob=0.0, tokens=[])],
                                       cached=False), num_train_instances=0, prompt_truncated=False)
                      for k, instance in enumerate(test)]
            stats = BBQMetric().evaluate_instances(states, "")
            out["patterns"][f"{category}/{pattern}"] = {s.name.name: s.mean for s in stats}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
