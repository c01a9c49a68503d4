"""Is run A better than run B on the same items? The paired verdict for two or more runs (``helmlite compare``).

Any run folder can be compared: a native run or one imported from crfm-helm, lm-eval or inspect_ai
(:mod:`helmlite.imports`). The runs are paired on their instance ids, and each pair of runs gets, per metric:

* each run's mean with its interval (:func:`helmlite.stats.mean_estimate`: Clopper–Pearson for 0/1 scores, the
  expanded percentile bootstrap otherwise);
* the difference A − B with its interval and two-sided p-value from the paired procedure the scores call for
  (:func:`helmlite.stats.paired_difference`): for 0/1 scores the exact McNemar (1947) test and Newcombe's (1998)
  interval; for continuous scores a paired bootstrap over items whose p-value comes from the same resamples;
* the verdict on the claim "A > B" (A's mean is higher) from :func:`helmlite.claims.claims_table` — ``supported``,
  ``contradicted`` (B's is higher) or ``inconclusive`` — with every pair and metric of the call in one family,
  Holm-corrected (Holm 1979), the minimum detectable effect at this n (80% power of the test used at α / m, Holm's
  worst case over the call's m comparisons: one pair is decided at α = 0.05, as a notebook decides a claim that its
  config declares as the one primary claim of its family) and the n needed to detect the observed difference.

Never an unpaired test on paired items (lm-eval's ``scripts/model_comparator.py`` applies a two-sample z-test to
them; its issue #3831): the item effect both runs share cancels only when the pairing is kept.

Runs are comparable when they evaluated the same scenario (name, arguments and split) on the same items; a
difference in the scenario or split is an error, a difference in how the runs were made (adaptation method,
in-context examples, source tool) is allowed and reported as a warning that names it (:func:`differences`).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import claims, stats
from .errors import UserError
from .results import INSTANCES, MANIFEST, STATS, Run, read_run
from .seeds import rng

ON_MISSING = ("error", "drop")
#: The table's columns, one row per pair of runs and metric.
COLUMNS = ["metric", "run_a", "run_b", "n", "dropped", "kind", "mean_a", "ci_low_a", "ci_high_a", "mean_b", "ci_low_b",
           "ci_high_b", "difference", "ci_low", "ci_high", "interval", "p_value", "p_adjusted", "p_floor", "correction",
           "alpha_per_claim", "mde", "n_needed", "verdict", "evidence"]
_SHOWN_IDS = 5


def load_run(run: str | Path, results_dir: str | Path) -> Run:
    """A run given as a run folder (one holding ``stats.json``) or as a run id under ``results_dir``."""
    path = Path(run)
    if (path / STATS).is_file():
        return read_run(path.parent, path.name)
    under = Path(results_dir) / str(run)
    if (under / STATS).is_file():
        return read_run(results_dir, str(run))
    raise UserError(f"compare: {run} is neither a run folder (a folder with {STATS}) nor a run id under {results_dir}")


def _split(run: Run) -> str:
    """The evaluation split: an imported crfm-helm run records it; native and lm-eval runs use their scenario's."""
    return str((run.manifest.imported_from or {}).get("split") or "test")


def _where(run: Run, name: str = MANIFEST) -> str:
    return str(run.folder / name) if run.folder else f"{run.run_id}/{name}"


def check_same_scenario(runs: list[Run]) -> None:
    """Refuse runs of different scenarios (registry name and arguments) or splits, naming both runs' manifests."""
    first = runs[0]
    for run in runs[1:]:
        for what, get in (("scenario", lambda r: r.stats.scenario), ("scenario arguments", lambda r: dict(r.spec.args)),
                          ("split", _split)):
            if get(run) != get(first):
                raise UserError(f"compare: the runs differ in {what}: {get(first)!r} ({_where(first)}) vs {get(run)!r} "
                                f"({_where(run)}); only runs of the same scenario and split can be paired")


_MODEL_KEYS = ("model", "model_deployment")  # crfm-helm's adapter spec names the model: not a difference in adaptation


def _made_by(run: Run) -> dict:
    spec = run.spec
    adapter = {f"adapter.{k}": v for k, v in spec.adapter.items() if k not in _MODEL_KEYS}
    return {"model": run.model, "source": spec.source or "helmlite", **adapter,
            "max_instances": spec.max_instances, "data_seed": spec.data_seed, "perturbations": list(spec.perturbations),
            "in-context examples": list(run.manifest.in_context_examples)}


def differences(runs: list[Run]) -> list[str]:
    """One line per way the runs were made differently besides the model (from their manifests), naming the runs by
    the letters of the output's legend (A = the first run, …): the comparison then measures the model difference
    together with it."""
    made = [_made_by(run) for run in runs]
    lines = []
    for key in dict.fromkeys(k for m in made for k in m):
        if key == "model":
            continue
        values = [m.get(key) for m in made]
        if any(v != values[0] for v in values[1:]):
            shown = ", ".join(f"{_letter(k)}: {_short(v)}" for k, v in enumerate(values))  # the legend's letters: short
            lines.append(f"the runs differ in {key} ({shown}; from their {MANIFEST})")
    return lines


def _short(value) -> str:
    text = "absent" if value is None else str(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _ids(ids) -> str:
    ids = list(ids)
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f" and {len(ids) - _SHOWN_IDS} more" if len(ids) > _SHOWN_IDS else "")


def _values(run: Run, metric: str) -> dict[str, float]:
    """Instance id → the metric's value on the instance (instances without a value left out; ids are unique, as
    :func:`helmlite.results.read_run` checks)."""
    values, bad = {}, []
    for record in run.records:
        value = record.metrics.get(metric)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            values[record.id] = float(value)
        elif value is not None and not (isinstance(value, float) and math.isnan(value)):
            bad.append(record.id)
    if bad:
        raise UserError(f"compare: {_where(run, INSTANCES)}: the {metric} value of instance(s) {_ids(bad)} is not a number")
    return values


def _check_inputs(runs: list[Run], ids: list[str]) -> None:
    """Refuse instances that share an id but not their input (the runs' instance ids mean different items)."""
    first = {record.id: " ".join(str(record.input or "").split()) for record in runs[0].records}
    for run in runs[1:]:
        other = {record.id: " ".join(str(record.input or "").split()) for record in run.records}
        mismatched = [i for i in ids if first[i] != other[i]]
        if mismatched:
            raise UserError(f"compare: {len(mismatched)} instance(s) share an id but not their input in "
                            f"{_where(runs[0], INSTANCES)} and {_where(run, INSTANCES)}: {_ids(mismatched)}; the ids "
                            f"name different items")


@dataclass(frozen=True)
class Aligned:
    """The metric's values of every run on the shared instances, in one id order."""

    metric: str
    ids: list[str]
    values: list[np.ndarray]
    own: list[frozenset[str]]  # per run, the ids it has a value for

    def dropped(self, k: int, j: int) -> int:
        """Instances of run ``k`` or run ``j`` left out because they are not in every run."""
        return len((self.own[k] | self.own[j]) - set(self.ids))


def align(runs: list[Run], metric: str, on_missing: str = "error") -> Aligned:
    """Pair the runs' values of ``metric`` by instance id. An instance that is not in every run (or has no value of
    the metric there) is an error naming the run's file and the first few ids, or, with ``on_missing="drop"``,
    left out and counted."""
    if on_missing not in ON_MISSING:
        raise UserError(f"compare: --on-missing must be one of {ON_MISSING}, got {on_missing!r}")
    values = [_values(run, metric) for run in runs]
    shared = set(values[0]).intersection(*values[1:])
    if on_missing == "error":
        for run, own in zip(runs, values):
            missing = [i for i in own if i not in shared]
            if missing:
                others = ", ".join(r.run_id for r in runs if r is not run)
                raise UserError(f"compare: {len(missing)} instance(s) of {_where(run, INSTANCES)} with a value of {metric} "
                                f"are not in every other run ({others}): {_ids(missing)}; compare the shared instances "
                                f"with --on-missing drop")
    ids = sorted(shared)
    if not ids:
        firsts = "; ".join(f"{_where(run, INSTANCES)}: {_ids(sorted(own)[:3])}" for run, own in zip(runs, values))
        raise UserError(f"compare: the runs share no instance id with a value of {metric} (first ids: {firsts}); runs "
                        f"made by different tools name their instances differently")
    _check_inputs(runs, ids)
    return Aligned(metric, ids, [np.array([own[i] for i in ids]) for own in values], [frozenset(own) for own in values])


def metrics_to_compare(runs: list[Run], metrics: list[str] | None) -> list[str]:
    """The metrics asked for, each a per-instance metric of every run; by default the runs' shared main metric."""
    if not metrics:
        mains = {run.main_metric for run in runs}
        if len(mains) > 1:
            raise UserError(f"compare: the runs' main metrics differ ({', '.join(f'{r.run_id}: {r.main_metric}' for r in runs)}); "
                            f"name the metric to compare with --metric")
        metrics = [runs[0].main_metric]
    for metric in metrics:
        for run in runs:
            own = sorted({m for record in run.records for m in record.metrics})
            if metric not in own:
                raise UserError(f"compare: metric {metric!r} is not a per-instance metric of {_where(run, INSTANCES)}; "
                                f"its metrics: {', '.join(own) or 'none'}")
    return list(dict.fromkeys(metrics))


def _pair(aligned: Aligned, k: int, j: int, runs: list[Run], means: list, level: float, n_resamples: int, seed: int):
    draw = rng(seed, "compare", aligned.metric, runs[k].run_id, runs[j].run_id)
    difference = stats.interval_for((aligned.values[k], aligned.values[j]), paired=True, level=level,
                                    n_resamples=n_resamples, seed=draw)
    binary = difference.discordance is not None  # the 0/1 design (McNemar + Newcombe) reports its discordance
    means = [means[k], means[j]]
    claim = claims.Claim(f"{runs[k].run_id} > {runs[j].run_id} on {aligned.metric}", f"mean {aligned.metric}: A − B",
                         difference.estimate, difference.ci_low, difference.ci_high, 0.0, difference.n, "greater",
                         p_value=difference.p_value, p_floor=difference.p_floor,
                         scale="paired-proportion" if binary else "difference", level=level,
                         discordance=claims.observed_discordance(difference.discordance, difference.n) if binary else None)
    row = {"metric": aligned.metric, "run_a": runs[k].run_id, "run_b": runs[j].run_id, "n": difference.n,
           "dropped": aligned.dropped(k, j),
           "kind": "0/1" if binary else "continuous", "mean_a": means[0].estimate, "ci_low_a": means[0].ci_low,
           "ci_high_a": means[0].ci_high, "mean_b": means[1].estimate, "ci_low_b": means[1].ci_low,
           "ci_high_b": means[1].ci_high, "interval": difference.method}
    return claim, row


def compare_runs(runs: list[Run], metrics: list[str] | None = None, *, alpha: float = 0.05, on_missing: str = "error",
                 n_resamples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Every pair of ``runs`` (in the order given: A before B) on every metric, one row each in :data:`COLUMNS`;
    intervals at level 1 − ``alpha``, p-values Holm-adjusted over all rows together."""
    if len(runs) < 2:
        raise UserError(f"compare: give at least two runs, got {len(runs)}")
    ids = [run.run_id for run in runs]
    repeated = [i for i in dict.fromkeys(ids) if ids.count(i) > 1]
    if repeated:
        folders = ", ".join(str(run.folder or run.run_id) for run in runs if run.run_id == repeated[0])
        raise UserError(f"compare: more than one of the runs has the run id {repeated[0]} ({folders}); compare "
                        f"different runs, or import them under different names (--model)")
    if not 0 < alpha < 1:
        raise UserError(f"compare: --alpha must lie strictly between 0 and 1, got {alpha}")
    check_same_scenario(runs)
    level = 1 - alpha
    pairs, rows = [], []
    for metric in metrics_to_compare(runs, metrics):
        aligned = align(runs, metric, on_missing)
        means = [stats.interval_for(values, level=level, n_resamples=n_resamples,  # each run's once, on the shared items
                                    seed=rng(seed, "compare-mean", metric, run.run_id))
                 for values, run in zip(aligned.values, runs)]
        for k, j in itertools.combinations(range(len(runs)), 2):
            claim, row = _pair(aligned, k, j, runs, means, level, n_resamples, seed)
            pairs.append(claim)
            rows.append(row)
    verdicts = claims.claims_table(pairs, alpha=alpha, correction="holm")
    out = pd.DataFrame(rows)
    for column in ("difference", "ci_low", "ci_high", "p_value", "p_adjusted", "p_floor", "correction", "mde", "verdict",
                   "evidence"):
        out[column] = verdicts["estimate" if column == "difference" else column].to_numpy()
    out["alpha_per_claim"] = verdicts["alpha"].to_numpy()
    out["n_needed"] = [claims.n_needed(claim, abs(claim.estimate), a) for claim, a in zip(pairs, out["alpha_per_claim"])]
    return out[COLUMNS]


def with_time_to_detect(table: pd.DataFrame, runs: list[Run], **price_args) -> pd.DataFrame:
    """``table`` with ``seconds_to_detect_a``/``_b``: the predicted seconds to run each pair's runs at its "n to
    detect" on this machine, native runs only (NaN for imported ones; :mod:`helmlite.planning.run_price`), and
    ``instances_to_detect``: the items those runs would have (fewer than n where the scenario has fewer)."""
    from .planning.run_price import seconds_at

    at_n = {n: dict(zip((run.run_id for run in runs), seconds_at([run.spec for run in runs], n, **price_args)))
            for n in {row.n_needed for row in table.itertuples() if math.isfinite(row.n_needed)}}  # one plan per n
    rows = []
    for row in table.itertuples():
        (a_s, a_n), (b_s, b_n) = ((at_n[row.n_needed][row.run_a], at_n[row.n_needed][row.run_b])
                                  if row.n_needed in at_n else [(math.nan, math.nan)] * 2)
        rows.append({"seconds_to_detect_a": a_s, "seconds_to_detect_b": b_s, "instances_to_detect": min(a_n, b_n)})
    return pd.concat([table.reset_index(drop=True), pd.DataFrame(rows, index=range(len(table)))], axis=1)


def _time(row) -> str:
    """The "time for n" cell: both runs' predicted minutes, or n/a."""
    if not (math.isfinite(row.seconds_to_detect_a) and math.isfinite(row.seconds_to_detect_b)):
        return "n/a"
    text = f"{row.seconds_to_detect_a / 60:,.1f} + {row.seconds_to_detect_b / 60:,.1f} min"
    return text + (f" (all {int(row.instances_to_detect)} items)" if row.instances_to_detect < row.n_needed else "")


def _interval(mean: float, low: float, high: float, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"{mean:{sign}.3f} [{low:.3f}, {high:.3f}]" if math.isfinite(low) else f"{mean:{sign}.3f} [n/a]"


def render(table: pd.DataFrame, runs: list[Run], alpha: float) -> str:
    """The table as text: a legend naming each run, one line per pair and metric, and what the columns mean."""
    letters = {run.run_id: _letter(k) for k, run in enumerate(runs)}
    legend = [f"{letters[run.run_id]} = {run.run_id}  ({run.model}; {run.spec.source or 'helmlite'}; "
              f"{run.stats.scenario}, {run.spec.method})" for run in runs]
    level = f"{1 - alpha:.0%}"
    shown = pd.DataFrame({
        "metric": table["metric"], "pair": [f"{letters[a]} vs {letters[b]}" for a, b in zip(table["run_a"], table["run_b"])],
        "n": table["n"], f"1st: mean [{level} CI]": [_interval(*r) for r in zip(table["mean_a"], table["ci_low_a"], table["ci_high_a"])],
        f"2nd: mean [{level} CI]": [_interval(*r) for r in zip(table["mean_b"], table["ci_low_b"], table["ci_high_b"])],
        f"1st − 2nd [{level} CI]": [_interval(*r, signed=True) for r in zip(table["difference"], table["ci_low"], table["ci_high"])],
        "p": [claims.format_p(p, floor).removeprefix("= ") for p, floor in zip(table["p_value"], table["p_floor"])],
        "p (Holm)": [claims.format_p(p, floor, adjusted).removeprefix("= ")
                     for p, floor, adjusted in zip(table["p_value"], table["p_floor"], table["p_adjusted"])],
        "MDE": table["mde"].map(claims.format_number),
        "n to detect": table["n_needed"].map(lambda v: "n/a" if not math.isfinite(v) else f"{int(v)}"),
        "1st > 2nd": table["verdict"]})
    if "seconds_to_detect_a" in table:
        shown.insert(shown.columns.get_loc("n to detect") + 1, "time for n", [_time(row) for row in table.itertuples()])
    kinds = sorted(set(table["kind"]))
    tests = {"0/1": "0/1 scores: exact McNemar p, Newcombe interval",
             "continuous": "continuous scores: paired bootstrap (p from the same resamples)"}
    notes = [f"{'; '.join(tests[k] for k in kinds)}. Verdict on \"1st > 2nd\": supported (the 1st has the higher mean), "
             f"contradicted (the 2nd has) or inconclusive, at α = {claims.format_number(alpha)} with p Holm-adjusted over "
             f"the {len(table)} comparison(s); for a metric where lower is better (an error rate, toxicity) supported "
             f"means the 1st is worse. MDE: the smallest difference this n detects with 80% power at the level each "
             f"comparison is decided at, α = {claims.format_number(alpha)} / {len(table)} (Holm's worst case over this "
             f"call's comparisons; a notebook that decides the same claim inside a family of k hypotheses decides it at "
             f"α / k: its claims table's alpha column); "
             f"\"n to detect\": the pairs needed to detect the observed difference at that level" + (
                 "; \"time for n\": the predicted run compute of the 1st and the 2nd at that n on this machine (helmlite "
                 "plan's measured rates; n/a for imported runs and models it cannot price or has not measured: `helmlite plan` "
                 "measures them)." if "seconds_to_detect_a" in table
                 else ".")]
    dropped = table[table["dropped"] > 0]
    notes += [f"{row.metric}, {letters[row.run_a]} vs {letters[row.run_b]}: {row.dropped} of their instance(s) left out, "
              f"not in every run (--on-missing drop)" for row in dropped.itertuples()]
    excludes = (table["ci_low"] > 0) | (table["ci_high"] < 0)
    split = table[excludes & (table["verdict"] == "inconclusive") & (table["kind"] == "0/1")]
    notes += [f"{row.metric}, {letters[row.run_a]} vs {letters[row.run_b]}: the Newcombe interval excludes 0 but the exact "
              f"McNemar p (Holm-adjusted {claims.format_number(row.p_adjusted)}) does not reach α: two procedures that can "
              f"disagree at the margin; the verdict follows the exact test" for row in split.itertuples()]
    return "\n".join(legend + ["", shown.to_string(index=False), ""] + notes) + "\n"


def _letter(k: int) -> str:
    return chr(ord("A") + k) if k < 26 else f"R{k + 1}"
