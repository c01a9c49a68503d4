"""The claims a config's analyses will state, named as their reports will name them, before anything runs.

Each analysis declares its claims for the runs a config makes (``declare_claims`` in
``helmlite/analyses/<name>/claims.py``); a claim's name needs only what the run specs say (model, scenario, method,
perturbations, the grid's study labels), so it is known before any data is loaded. The planner extends these rows with
what it counts (:mod:`helmlite.planning`), and a config's ``primary_claims`` are checked against them at start-up — in
``helmlite config``, ``helmlite plan`` and the Snakefile — with one error line naming the key.
"""
from __future__ import annotations

from .config import ConfigError
from .jobs import grid_runs, runs_by_analysis
from .outputs import enabled

#: The arguments that size a synthetic scenario (shown in their own columns, not in its label).
SIZE_ARGS = ("target_tokens", "n_contexts", "n_questions")


def study_labels(config: dict) -> dict[str, list[tuple[str, str]]]:
    """Run id → the (study, level) labels a grid gives it (notebook 02's studies)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for analysis in enabled(config):
        for run_id, item in grid_runs(config, analysis):
            if item.study is not None:
                out.setdefault(run_id, []).append((item.study, item.level))
    return out


def run_rows(config: dict) -> list[dict]:
    """One row per run of the config, in the planner's order (analysis, then run id), with what claim names need:
    analysis, run_id, model (as a run records it: :func:`helmlite.evaluation.runspec.model_key`), scenario, scenario_label (:func:`helmlite.results.scenario_label`, less the size
    arguments), method, seed, length (``target_tokens``), perturbations and labels."""
    from ..results import scenario_label
    from ..evaluation import model_key

    labels = study_labels(config)
    rows = []
    for key, runs in runs_by_analysis(config).items():
        for run_id, spec in sorted(runs.items()):
            args = dict(spec.args)
            rows.append({"analysis": key, "run_id": run_id, "model": model_key(spec.model), "scenario": spec.scenario,
                         "scenario_label": scenario_label(spec.scenario, {k: v for k, v in args.items() if k not in SIZE_ARGS}),
                         "method": spec.adapter.method, "seed": spec.adapter.seed, "length": args.get("target_tokens"),
                         "perturbations": list(spec.perturbations), "labels": labels.get(run_id, [])})
    return rows


def declarations(runs: list[dict], analyses) -> list:
    """Every claim the enabled ``analyses`` (keys) declare for the rows ``runs`` (:func:`run_rows`, with the planner's
    counts where it has them: ``instances``, ``contexts``, ``choices``, ``positions``), in the analyses' order."""
    from ..analyses.depth.claims import declare_claims as depth
    from ..analyses.helm_core.claims import declare_claims as helm_core
    from ..analyses.helmet.claims import declare_claims as helmet
    from ..analyses.sensitivity.claims import declare_claims as sensitivity

    out = []
    for key in analyses:
        mine = [r for r in runs if r["analysis"] == key]
        if key == "helm_core":
            out += helm_core(mine)
        elif key == "sensitivity":
            out += sensitivity([r for r in runs if r.get("labels")])  # a run shared with notebook 01 keeps its labels
        elif key == "depth":
            out += depth(mine)
        elif key == "helmet":
            out += helmet()
    return out


def primary_claims(config: dict) -> dict[str, list[str]]:
    """Analysis key → the claims its config section declares primary (``primary_claims``; absent: every claim)."""
    return {a.key: config[a.key]["primary_claims"] for a in enabled(config)
            if (config.get(a.key) or {}).get("primary_claims") is not None}


def check_primary(declared: list, primary: dict, source: str = "config") -> None:
    """A config's ``<analysis>.primary_claims`` must name claims that analysis declares for this config, verbatim: one
    error naming the key and listing the analysis's claims otherwise."""
    for key, names in (primary or {}).items():
        known = {d.name for d in declared if d.analysis == key}
        for name in names or []:
            if name not in known:
                listing = "; ".join(sorted(known)) or "(none)"
                raise ConfigError(f"{source}: {key}.primary_claims: {name!r} is not a claim of {key} for this config "
                                  f"(names are its claims table's 'claim' column, verbatim); its claims: {listing}")


def check_primary_claims(config: dict, source: str = "config") -> None:
    """:func:`check_primary` on a validated config's own runs — only where it declares primary claims (the check
    imports the analyses, which a config without any need not pay for at start-up)."""
    primary = primary_claims(config)
    if primary:
        rows = [{**row, "instances": float("nan"), "contexts": float("nan"), "choices": float("nan")}
                for row in run_rows(config)]
        check_primary(declarations(rows, [a.key for a in enabled(config)]), primary, source)
