"""A design for a decision: from a target minimum detectable effect to a sized config and its price on this machine
(``helmlite plan --target-mde D``; issue "Design for a decision").

1. The config's plan gives, per claim its analyses declare, the n needed for an MDE of ``D`` at 80% power with the
   notebooks' own tests at the level the claim's family decides it at (α / family size; :mod:`.claim_mdes`), at the
   planning values or a pilot's (:mod:`.pilot`), never fewer units than a verdict needs (the exact tests' minimum at
   that level, the depth tests' minimum contexts).
2. Each claim asks that of its runs, capped at the items each scenario has: a paired or per-run claim ``n_needed``
   items (or contexts) of each, a pooled claim its items spread over its runs as far as each run's items go
   (:func:`pooled_shares`). A config entry (a ``runs:`` item, a grid's scenario or depth task) gets the most any of its
   runs is asked for — items as its ``max_instances``, contexts as its ``args.n_contexts`` — and the entries of claims
   not named keep their size.
3. The sized config is validated by the schema and planned like any config: its claims' n and MDE (at the same
   planning values: the pilot's runs stand for the sized runs of the same specification) and the compute of each
   claim's runs on this machine. A claim the scenario's items cannot bring to ``D`` says so, with the best MDE the
   items that exist reach.
"""
from __future__ import annotations

import copy
import inspect
import math
from dataclasses import dataclass

import pandas as pd

from .. import workflow
from ..errors import UserError
from ..evaluation import RunSpec
from .pilot import Pilot
from .planner import plan, predicted_wall_s

#: The columns of the design's claims table (``--table claims --format csv`` with ``--target-mde``).
COLUMNS = ["analysis", "claim", "family", "role", "family_size", "alpha", "n", "mde", "discordance", "target_mde",
           "n_needed", "n_design", "mde_design", "discordance_design", "reachable", "predicted_s", "planning"]


@dataclass
class Design:
    claims: pd.DataFrame  # one row per headline claim, :data:`COLUMNS`
    config: dict          # the sized config as written (the user's keys, resized entries)
    before: object        # the config's plan (:class:`helmlite.planning.Plan`)
    after: object         # the sized config's plan


def select_claims(claims: pd.DataFrame, names: list[str] | None) -> pd.Series:
    """Which claims drive the sizing: all (``names`` None), or for each name the claim of that name (verbatim, as a
    claims table prints it) or else those whose text contains it (case-insensitive); an empty name, or one that matches
    no claim, is an error (the latter listing the claims)."""
    if names is None:
        return pd.Series(True, index=claims.index)
    if not names or any(not name.strip() for name in names):
        raise UserError("plan --claims: give the name (or part of the name) of each claim to size; an empty name selects "
                        "nothing (leave --claims out to size every claim)")
    text = claims["claim"].str.lower()
    chosen = pd.Series(False, index=claims.index)
    for name in names:
        exact = claims["claim"] == name
        hits = exact if exact.any() else text.str.contains(name.lower(), regex=False)
        if not hits.any():
            listing = "; ".join(claims["claim"])
            raise UserError(f"plan --claims: {name!r} matches no headline claim of this config; its claims: {listing}")
        chosen |= hits
    return chosen


def pooled_shares(needed: int, available: dict[str, float]) -> dict[str, int]:
    """A pooled claim's ``needed`` items spread over its runs as evenly as their items allow (water-filling): a run with
    fewer items than an equal share gives all it has and the others share the rest; every run gets all it has when
    together they have fewer than ``needed``."""
    shares, left = {}, int(needed)
    for k, (run_id, items) in enumerate(sorted(available.items(), key=lambda item: item[1])):
        share = math.ceil(left / (len(available) - k))
        shares[run_id] = int(min(share, items)) if math.isfinite(items) else share
        left -= shares[run_id]
    return shares


def wanted_sizes(claims: pd.DataFrame, chosen: pd.Series, available: dict[str, float]) -> dict[str, int]:
    """Run id → the items (or contexts) the chosen claims ask of it, at most ``available`` (its test items; inf for
    contexts, which are generated): each member run ``n_needed`` for a per-run or paired claim, its
    :func:`pooled_shares` of it for a pooled claim; the most any claim asks."""
    wanted: dict[str, int] = {}
    for claim in claims[chosen].itertuples():
        if not math.isfinite(claim.n_needed) or claim.no_verdict:  # n_needed is never below what a verdict needs
            continue
        items = {m: available.get(m, math.inf) for m in claim.members if m}
        shares = (pooled_shares(claim.n_needed, items) if claim.pooled
                  else {m: int(min(claim.n_needed, cap)) if math.isfinite(cap) else int(claim.n_needed)
                        for m, cap in items.items()})
        for run_id, share in shares.items():
            wanted[run_id] = max(wanted.get(run_id, 0), share)
    return wanted


def entry_sizes(runs: pd.DataFrame, units: dict[str, str], wanted: dict[str, int]) -> dict[tuple, tuple[str, int]]:
    """Config entry (its source, :func:`helmlite.planning.planner._sources`) → (its runs' unit, ``"instances"`` or
    ``"contexts"``; size): the most its runs are asked for (``units``: run id → ``items`` or ``contexts``)."""
    sizes: dict[tuple, tuple[str, int]] = {}
    for run in runs.itertuples():
        if run.run_id in wanted and run.source:
            unit = units[run.run_id]
            sizes[run.source] = (unit, max(wanted[run.run_id], sizes.get(run.source, (unit, 0))[1]))
    return sizes


#: The loader arguments that count a depth task's contexts (synthetic tasks: ``n_contexts``; multi-document QA, one
#: context per question: ``n_questions``).
CONTEXT_COUNTS = ("n_contexts", "n_questions")


def context_count_arg(scenario_name: str) -> str:
    """The argument of ``scenario_name``'s loader that sets how many contexts it builds (:data:`CONTEXT_COUNTS`)."""
    from ..scenarios import scenario

    accepted = inspect.signature(scenario(scenario_name).load).parameters
    return next(name for name in CONTEXT_COUNTS if name in accepted)


def sized_config(raw: dict, sizes: dict[tuple, tuple[str, int]]) -> dict:
    """``raw`` (the config as the user wrote it) with each entry of ``sizes`` resized: ``max_instances`` for items,
    the task's context count (:func:`context_count_arg`) for a depth task's contexts."""
    out = copy.deepcopy(raw)
    for source, (unit, size) in sorted(sizes.items(), key=lambda item: str(item[0])):
        entry = out["runs"][source[1]] if source[0] == "runs" else out[source[0]][source[1]][source[2]]
        if unit == "contexts":  # else items
            entry["args"] = {**entry.get("args", {}), context_count_arg(entry["scenario"]): size}
        else:
            entry["max_instances"] = size
    return out


def _size_free(spec: RunSpec) -> str:
    """A run's specification without its size (``max_instances``, its context count): a pilot run and the sized run
    of one entry share it."""
    spec_dict = spec.as_dict()
    spec_dict.pop("max_instances", None)
    spec_dict["args"] = {k: v for k, v in spec_dict.get("args", {}).items() if k not in CONTEXT_COUNTS}
    return repr(sorted(spec_dict.items()))


def pilot_aliases(config: dict, sized: dict) -> dict[str, str]:
    """Sized run id → the config's run id of the same specification: the pilot runs whose observations plan it."""
    before = {_size_free(spec): run_id for run_id, spec in workflow.run_specs(config).items()}
    return {run_id: before[key] for run_id, spec in workflow.run_specs(sized).items()
            if (key := _size_free(spec)) in before}


def design(config: dict, raw: dict, target: float, names: list[str] | None = None, **plan_args) -> Design:
    """The design that brings the chosen headline claims (all, or those matching ``names``) of ``config`` — validated;
    ``raw``: the same config as written — to an MDE of ``target`` (see the module docstring)."""

    if not 0 < target < 1:
        raise UserError(f"plan --target-mde must lie strictly between 0 and 1 (a difference on a 0-1 scale), got {target}")
    before = plan(config, effect=target, **plan_args)
    if before.claims.empty:
        raise UserError("plan --target-mde: this config makes no headline claim to size (see `helmlite plan`)")
    chosen = select_claims(before.claims, names)
    units = {m: claim.unit for claim in before.claims.itertuples() for m in claim.members}  # run → what its n counts
    available = {run.run_id: run.available if units.get(run.run_id) == "items" else math.inf
                 for run in before.runs.itertuples()}
    sizes = entry_sizes(before.runs, units, wanted_sizes(before.claims, chosen, available))
    raw_sized = sized_config(raw, sizes)
    sized = workflow.validate_config(raw_sized, "the sized config")
    pilot = Pilot(config["engine"]["results_dir"], aliases=pilot_aliases(config, sized))
    after = plan(sized, effect=target, pilot=pilot, **plan_args)
    seconds = dict(zip(after.runs["run_id"], after.runs["predicted_s"]))
    designed = {row.claim: row for row in after.claims.itertuples()}
    rows = []
    for row, chosen_row in zip(before.claims.itertuples(), chosen):
        new = designed.get(row.claim)
        mde_design = new.mde if new is not None else math.nan
        rows.append({"analysis": row.analysis, "claim": row.claim, "family": row.family, "role": row.role,
                     "family_size": row.family_size, "alpha": row.alpha, "n": row.n, "mde": row.mde,
                     "discordance": row.discordance, "target_mde": target,
                     "n_needed": row.n_needed, "n_design": new.n if new is not None else math.nan,
                     "mde_design": mde_design, "discordance_design": new.discordance if new is not None else math.nan,
                     "reachable": bool(mde_design <= target + 1e-12),
                     "predicted_s": (sum(seconds.get(m, math.nan) for m in new.members)
                                     if new is not None and new.members else math.nan),
                     "planning": row.planning, "sized": bool(chosen_row)})
    return Design(pd.DataFrame(rows, columns=COLUMNS + ["sized"]), raw_sized, before, after)


def render(result: Design, cores: int) -> str:
    """The design as the terminal shows it: per claim now and designed, what cannot be reached, the price."""

    table = result.claims

    def whole(values):
        return values.map(lambda v: f"{v:,.0f}" if math.isfinite(v) else "n/a")

    def effect(values):
        return values.map(lambda v: f"{v:.3f}" if math.isfinite(v) else "n/a")

    shown = pd.DataFrame({"analysis": table["analysis"], "claim": table["claim"], "role": table["role"],
                          "alpha": table["alpha"].map(lambda v: f"{v:.4g}"), "n": whole(table["n"]),
                          "mde": effect(table["mde"]), "n_needed": whole(table["n_needed"]),
                          "n_design": whole(table["n_design"]), "mde_design": effect(table["mde_design"]),
                          "predicted_min": (table["predicted_s"] / 60).map(lambda v: f"{v:,.1f}" if math.isfinite(v) else "n/a"),
                          "planning": table["planning"]})
    target = float(table["target_mde"].iloc[0])
    sized = table[table["sized"]]
    lines = [f"Design for an MDE of {target:g} (80% power at the level each claim's family decides it at: alpha = 0.05 / "
             f"family size; the notebooks' tests) on {len(sized)} of {len(table)} claim(s)", "",
             shown.to_string(index=False), ""]
    for row in sized[~sized["reachable"]].itertuples():
        if row.planning.startswith("a published table"):
            lines.append(f"not sized: {row.claim} — it reads a published table, not runs")
        elif math.isfinite(row.mde_design):
            lines.append(f"cannot reach {target:g}: {row.claim} — best reachable MDE {row.mde_design:.3f} with n = "
                         f"{int(row.n_design)} (every item the data have)")
        else:
            lines.append(f"cannot reach {target:g}: {row.claim} — no MDE at the design's n ({row.planning})")
    for label, part in (("now", result.before), ("designed", result.after)):
        total = part.analyses.iloc[-1]
        lines.append(f"{label}: {int(total['instances']):,} instances, predicted run compute "
                     f"{total['predicted_run_s']:,.0f} s + job start-up {total['job_startup_s']:,.0f} s ≈ "
                     f"{predicted_wall_s(part, cores) / 60:,.1f} min of run jobs over {cores} core(s)")
    lines.append("(predicted_min: the compute of the runs each claim reads, on this machine's measured rates; runs "
                 "several claims share count in each; mde_design at the same planning values)")
    return "\n".join(lines)
