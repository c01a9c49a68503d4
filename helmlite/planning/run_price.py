"""The predicted compute of native runs at another size: ``helmlite compare``'s time to run its "n to detect" (issue
"Design for a decision" §3).

A run's specification as its manifest keeps it, with ``max_instances`` set to n, is planned like any config's run
(:func:`helmlite.planning.plan`: its requests counted by the backend, priced at this machine's measured rates, with
the per-run overhead): the seconds it would take here, and the instances it would have (fewer than n where the
scenario has fewer). Imported runs (a ``source`` tool) and models this machine cannot price (no local weights, a GPU
or half precision, no rates measured yet: ``helmlite plan`` measures them, in a minute; this never does) give NaN.
"""
from __future__ import annotations

import math
from pathlib import Path

from .. import workflow
from ..evaluation import RunSpec
from .planner import plan
from .rates import RATES_FILE


def _spec_at(spec, n: int) -> dict:
    """The run spec of a native run's :class:`~helmlite.results.records.SpecRecord` with ``n`` test instances."""
    out = {"scenario": spec.scenario, "model": spec.model, "args": dict(spec.args), "adapter": dict(spec.adapter),
           "max_instances": int(n), "data_seed": spec.data_seed, "perturbations": list(spec.perturbations),
           "metrics": list(spec.metrics)}
    return {**out, "dtype": spec.dtype} if spec.dtype != "float32" else out


def seconds_at(specs: list, n: int, *, rates_file: str | Path = RATES_FILE) -> list[tuple[float, float]]:
    """(predicted seconds, instances) of each run spec record in ``specs`` at ``n`` test instances on this machine;
    (NaN, NaN) for an imported run or one the plan cannot price."""

    native = [spec for spec in specs if spec.source is None]
    if not native or not n >= 1:
        return [(math.nan, math.nan)] * len(specs)
    runs = [_spec_at(spec, n) for spec in native]
    config = workflow.validate_config({"analyses": ["helm_core"], "helm_core": {"scenarios": []}, "runs": runs},
                                      "the compared runs at n")
    planned = plan(config, rates_file=rates_file, measure_rates=False).runs.set_index("run_id")
    out = []
    for spec in specs:
        if spec.source is not None:
            out.append((math.nan, math.nan))
            continue
        row = planned.loc[RunSpec.from_dict(workflow.with_precision(config, _spec_at(spec, n))).run_id]
        out.append((float(row["predicted_s"]), float(row["instances"])))
    return out
