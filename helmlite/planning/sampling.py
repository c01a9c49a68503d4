"""Which of a large run's instances the plan counts, and by what factor it scales their work (issue "Paper scale on
real hardware" §4: tokenizing every prompt of a paper-scale config took minutes).

A run of at most :data:`SAMPLE_ABOVE` test instances is counted whole (the default config's runs). A larger one is
counted on about :data:`SAMPLE_INSTANCES` of them, and its summed work scaled by test instances / counted ones:

* instances that share a context (a depth sweep's positions of one dictionary, haystack or question: metadata
  ``context``) are kept or left out a whole context at a time, the first contexts in load order: the positions of
  one context share its prompt's prefix, which the backend encodes once, so a sample of scattered positions would
  count each context's prefix again (measured: a 50-position sample of JSON KV at 1,024 tokens scaled to 4.8× the
  whole run's tokens);
* otherwise the run's own subsample is drawn with :data:`SAMPLE_INSTANCES` instead of its ``max_instances`` (under
  helm_compat the first draws of the run's subsample: ``np.random.choice`` without replacement draws a prefix of one
  permutation). The scaled count repeats the run's shared few-shot prefix's first encoding with every scaled
  question, so it errs on the long side by about that prefix's share of a sample's tokens.

The error, measured by ``benchmarks/plan_sampling_error.py`` on ``config/paper.yaml``, is in docs/explanation/planning.md.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..scenarios import TEST

SAMPLE_ABOVE, SAMPLE_INSTANCES = 200, 50


@dataclass(frozen=True)
class Sample:
    spec: object       # the run spec whose requests are counted
    instances: list    # the scenario's instances it is prepared from
    factor: float      # the run's test instances / the counted ones (1.0: counted whole)


def counted_sample(spec, everything: list, test: list) -> Sample:
    """What the plan counts of a run with the scenario's instances ``everything`` and the run's ``test`` instances
    (see the module docstring)."""
    if len(test) <= SAMPLE_ABOVE:
        return Sample(spec, everything, 1.0)
    contexts = list(dict.fromkeys(i.metadata["context"] for i in test if "context" in i.metadata))
    if 1 < len(contexts) < len(test):
        keep = set(contexts[:math.ceil(SAMPLE_INSTANCES * len(contexts) / len(test))])
        kept = {id(i) for i in test if i.metadata.get("context") in keep}
        return Sample(dataclasses.replace(spec, max_instances=None),
                      [i for i in everything if i.split != TEST or id(i) in kept], len(test) / len(kept))
    return Sample(dataclasses.replace(spec, max_instances=SAMPLE_INSTANCES), everything, len(test) / SAMPLE_INSTANCES)
