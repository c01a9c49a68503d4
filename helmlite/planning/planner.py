"""``helmlite plan`` (:func:`plan`): what a config will cost and what it can decide, before any model runs (issue 24 §2).

For every run of the config (the same run list the workflow executes, :func:`helmlite.workflow.run_specs`):
its instances, the prompt tokens the backend will encode after prefix reuse and the tokens it will
generate (counted by the backend itself with its forward passes replaced, :func:`helmlite.models.work_counter`), and its
predicted seconds from this machine's measured rates (:mod:`.rates`, calibrated once per model and cached
with the machine's identity). Sums per analysis and in total, with the run jobs' start-up. And, for each
headline claim the notebooks will test, the n it gets and its minimum detectable effect (:mod:`.claim_mdes`).

A request that several runs ask for (the unperturbed 5-shot MMLU requests of notebook 01's run with a
perturbation and of notebook 02's base configuration) is answered by the shared request cache when one run
finishes before the other starts, so it is counted once, at the first run that asks for it in the workflow's
run order. Two jobs that run such runs at the same time both compute it (measured 2026-12-01: the two 5-shot
SmolLM2 MMLU runs did): the plan is then low by those requests.

The plan checks itself against the runs already in the config's results folder that computed every request (no
request-cache hits): their measured wall seconds stand beside their predictions (``measured_s``), and per model the
median predicted / measured is printed with whether it is within :data:`CHECK_TOLERANCE`
(:func:`check_against_measured`) — rates measured on another host under the same CPU name, or in a slow spell,
show there.

Runs of a model a registered backend serves (``openai:<model>``) are counted through the counting hook that backend
registers and never priced; without a hook, and for an embedded model not yet prepared (``helmlite models prepare``;
``make plan`` prepares them), they are listed with their instances but NaN tokens and seconds, and the terminal
output says which models those are. Runs of a model the config places on a
GPU or in half precision are counted but not priced (:func:`priced_here`). Runs whose scenario's data cannot be
obtained here (offline, and absent from the mirror) are listed with NaN instances, tokens and seconds, and the plan
names the missing file: it still answers for every other run.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from tqdm.auto import tqdm

from .. import workflow
from ..errors import UserError
from ..results import read_timings
from . import memory
from ..scenarios import TEST
from .claim_mdes import EFFECT, TARGET_MDE, headline_claims
from .pilot import Pilot
from .rates import RATES_FILE, Rates, model_rates
from .sampling import counted_sample

#: Run jobs that share the machine slow each other (memory bandwidth, caches): the rates are measured one job at a
#: time, and two run jobs on this 2-core machine took longer than that by a factor that varied between runs of
#: `benchmarks/workflow_time.sh` (measured run compute over the one-job prediction, per run of the script:
#: 2026-12-01 1.27; 2026-12-02 14:43 ~1.18, 15:44 ~1.05, 18:36 ~1.00; 2026-12-03 13:58 1.10–1.12). The median
#: of those runs is applied when at least two jobs run at once (``cores`` ≥ 2 and ≥ 2 run jobs): any factor in
#: that range then leaves the prediction within −13% / +11% of it.
CONCURRENT_SLOWDOWN = 1.11
PER_RUN_OVERHEAD_S = 0.12  # all but model calls per run: the median measured by workflow_time.sh (2026-12-03); goal 0.5
#: How far a model's median predicted / measured run seconds may stray before the plan says its rates no longer fit
#: (the goal of issue 24: ±25%).
CHECK_TOLERANCE = 0.25
IMPORT_S = 4.0  # a run job's Python start-up (torch, transformers, helmlite) before the model loads (measured here: 3-5 s)


@dataclass
class Plan:
    runs: pd.DataFrame      # one row per run
    analyses: pd.DataFrame  # one row per analysis, then "total"
    claims: pd.DataFrame    # one row per headline claim
    calibrated: list[str]   # models whose rates were measured now (not read from the cache)
    jobs: dict              # run job id → its run specs, as the workflow groups them


def priced_here(config: dict, model: str) -> bool:
    """Whether this machine's rates price ``model``'s runs: they are measured on its CPU in float32 with the
    transformers backend, so a model the config places on a GPU (``cuda``, ``mps``, or ``auto`` where torch sees CUDA
    here) or in half precision, and a model a registered backend serves (a server's speed is not this machine's),
    is counted (tokens, through the backend's counting hook where it has one) but not priced (NaN seconds)."""
    from ..models import resolve_device, served_by

    if served_by(model) is not None:
        return False
    placement = workflow.model_placement(config, model)
    device = resolve_device("auto") if placement["device"] == "auto" else placement["device"]
    return device == "cpu" and placement["dtype"] == "float32"


class _LoadedScenarios:
    """The instances of the scenarios the plan has loaded, by (model, scenario, arguments): a config runs each
    scenario under many settings (seeds, shots, methods, perturbations), and loading is a large part of a plan's time
    (synthetic contexts are sized by the model's tokenizer). The plan visits runs in run-id order — scenario and
    arguments first, then model — so the few most recent loads are kept (:data:`KEEP`)."""

    KEEP = 4

    def __init__(self):
        self._kept: dict[tuple, list] = {}

    def __call__(self, spec, counter) -> list:
        from ..evaluation import load_all
        from ..models import WhitespaceTokens

        key = (spec.model, spec.scenario, repr(spec.args))  # an argument may be a list
        if key not in self._kept:
            if len(self._kept) >= self.KEEP:
                del self._kept[next(iter(self._kept))]
            self._kept[key] = load_all(spec, counter if counter is not None else WhitespaceTokens())
        return self._kept[key]


def _sources(config: dict) -> dict[str, tuple]:
    """Run id → where in the config its entry is: ``("runs", i)``, or (analysis key, list key, i) for a grid's entry
    (the first, where several entries make one run): what a design resizes (:mod:`.design`)."""
    from ..evaluation import RunSpec

    out = {RunSpec.from_dict(workflow.with_precision(config, run)).run_id: ("runs", i)
           for i, run in enumerate(config.get("runs", []))}
    for analysis in workflow.enabled(config):
        for run_id, item in workflow.grid_runs(config, analysis):
            out.setdefault(run_id, (analysis.key, *item.source))
    return out


def _counter_and_rates(config: dict, model: str, **rates_args) -> tuple:
    """(work counter, rates, measured now) of ``model``: (None, None, False) without local weights; no rates where
    this machine's do not hold (:func:`priced_here`) or none are cached and ``measure`` is false."""
    from ..models import work_counter

    engine = config["engine"]
    counter = work_counter(model, batch_size=engine["batch_size"], exact_paths=priced_here(config, model))
    if counter is None:
        return None, None, False
    if not priced_here(config, model):
        return counter, None, False
    rates_here, measured = model_rates(model, counter.path, threads=engine["threads"], batch_size=engine["batch_size"],
                                       counter=counter, **rates_args)
    return counter, rates_here, measured


def plan(config: dict, *, rates_file: str | Path = RATES_FILE, recalibrate: bool = False, cores: int = 1,
         effect: float = EFFECT, pilot: Pilot | None = None, measure_rates: bool = True) -> Plan:
    """The plan of a validated config (see the module docstring); with ``cores`` ≥ 2 and several run jobs,
    each run's seconds include :data:`CONCURRENT_SLOWDOWN`. The claims' ``n_needed`` is for a difference ``effect``;
    their planning values come from ``pilot`` (default: the runs already in the config's results folder,
    :mod:`.pilot`) where it has them. ``measure_rates=False``: models without cached rates are counted, not priced."""
    from ..data import FetchError
    from ..evaluation import split
    from ..evaluation import prepare_requests

    engine = config["engine"]
    counters: dict = {}  # model → its WorkCounter, None without local weights
    rates: dict[str, Rates | None] = {}
    calibrated = []
    sources = _sources(config)
    named = {row["run_id"]: row for row in workflow.run_rows(config)}  # what each run's claim names need
    batches = workflow.run_batches(config)
    slowdown = CONCURRENT_SLOWDOWN if cores >= 2 and len(batches) >= 2 else 1.0
    asked: dict[str, set] = {}  # per model, the requests an earlier run of the plan already counts
    loaded = _LoadedScenarios()
    rows = []
    grouped = workflow.runs_by_analysis(config)
    progress = tqdm(total=sum(len(runs) for runs in grouped.values()), desc="planning runs", unit="run", leave=False,
                    disable=None)  # on an interactive terminal only
    for key, runs in grouped.items():
        for run_id, spec in sorted(runs.items()):
            progress.update()
            if spec.model not in counters:
                counters[spec.model], rates[spec.model], measured = _counter_and_rates(
                    config, spec.model, rates_file=rates_file, recalibrate=recalibrate, measure=measure_rates)
                calibrated += [spec.model] if measured else []
            counter = counters[spec.model]
            row = {**named[run_id], "source": sources.get(run_id, ()), "absent_data": ""}
            try:
                everything = loaded(spec, counter)
            except FetchError as error:  # a data file absent here: unknown, the plan still answers for every other run
                if error.name is None:  # not a file's absence (the mirror setting itself is wrong)
                    raise
                rows.append({**row, "instances": math.nan, "available": math.nan, "contexts": math.nan, "positions": math.nan,
                             "choices": math.nan,
                             "tokens_to_encode": math.nan, "tokens_to_generate": math.nan, "predicted_s": math.nan,
                             "peak_mb": math.nan, "absent_data": error.name})
                continue
            test = split(spec, everything)[1]
            seconds = encoded = generated = peak_mb = math.nan
            if counter is not None:
                sample = counted_sample(spec, everything, test)
                adapted = prepare_requests(sample.spec, counter, sample.instances)[4]
                seen = asked.setdefault(spec.model, set())
                new = list(dict.fromkeys(r for a in adapted for r in a.requests if r not in seen))
                seen.update(new)
                work = counter.count(new, engine["chunk_size"])
                if sample.factor != 1.0:
                    work = work.scaled(sample.factor)
                encoded, generated = work.encoded_tokens, work.decode_steps
                model_rates_here = rates[spec.model]
                if model_rates_here:
                    seconds = model_rates_here.seconds(work) * slowdown + PER_RUN_OVERHEAD_S
                    if model_rates_here.loaded_mb is not None:  # calibrations before memory was measured lack it
                        peak_mb = model_rates_here.loaded_mb + memory.work_mb(work, memory.model_shape(counter.config))
            rows.append({**row, "instances": len(test), "available": sum(i.split == TEST for i in everything),
                         "contexts": len({i.metadata.get("context", i.id) for i in test}),
                         "positions": len({i.metadata.get("position") for i in test
                                           if i.metadata.get("context") == test[0].metadata.get("context")}),
                         "choices": len(test[0].references), "tokens_to_encode": encoded,
                         "tokens_to_generate": generated, "predicted_s": seconds, "peak_mb": peak_mb})
    progress.close()
    if not rows:
        raise UserError(f"plan: the config makes no model runs (analyses {', '.join(config['analyses'])} read published "
                        "data or simulate it): there is nothing to plan")
    runs = pd.DataFrame(rows)
    runs["measured_s"] = [_measured_s(engine["results_dir"], run_id) for run_id in runs["run_id"]]
    claims = headline_claims(rows, effect, pilot if pilot is not None else Pilot(engine["results_dir"]),
                             analyses=[a.key for a in workflow.enabled(config)], primary=workflow.primary_claims(config))
    return Plan(runs, _summary(runs, config, rates, batches), pd.DataFrame(claims), calibrated, batches)


def _measured_s(results_dir: str, run_id: str) -> float:
    """Wall seconds of a run already in ``results_dir`` whose requests all reached the model (a run the request cache
    answered in part is faster than any prediction of computing it), else NaN: what the plan is checked against."""
    timings = read_timings(results_dir, run_id)
    computed = timings is not None and timings.wall_s is not None and timings.cache_hits == 0 and (timings.model_calls or 0) > 0
    return float(timings.wall_s) if computed else math.nan


def check_against_measured(runs: pd.DataFrame) -> pd.DataFrame:
    """Per model, the plan against the runs already measured (``measured_s``): how many, and the median and range of
    predicted / measured seconds. Outside :data:`CHECK_TOLERANCE` the rates no longer fit this machine (another host
    under the same CPU name, a slow spell during calibration)."""
    measured = runs.dropna(subset=["measured_s", "predicted_s"])
    ratio = measured["predicted_s"] / measured["measured_s"]
    out = ratio.groupby(measured["model"]).agg(["count", "median", "min", "max"]).reset_index()
    out.columns = ["model", "runs", "median", "min", "max"]
    out["within_tolerance"] = out["median"].between(1 - CHECK_TOLERANCE, 1 + CHECK_TOLERANCE)
    return out


def _summary(runs: pd.DataFrame, config: dict, rates: dict, batches: dict) -> pd.DataFrame:
    """Per analysis and in total: runs, run jobs, instances, tokens, predicted run compute and job start-up
    (per job: Python's imports, :data:`IMPORT_S`, plus the model's measured load time)."""
    analysis_of = {run_id: key for key, runs_of in workflow.runs_by_analysis(config).items() for run_id in runs_of}
    job_analysis = {job: analysis_of[batch[0].run_id] for job, batch in batches.items()}
    rows = []
    for key, part in runs.groupby("analysis", sort=False):
        jobs = [job for job, analysis in job_analysis.items() if analysis == key]
        startup = sum(IMPORT_S + (rates[batches[job][0].model].load_s if rates.get(batches[job][0].model) else 0.0)
                      for job in jobs)
        rows.append({"analysis": key, "runs": len(part), "run_jobs": len(jobs), "instances": int(part["instances"].sum()),
                     "tokens_to_encode": part["tokens_to_encode"].sum(min_count=1),
                     "tokens_to_generate": part["tokens_to_generate"].sum(min_count=1),
                     "predicted_run_s": part["predicted_s"].sum(min_count=1), "job_startup_s": startup})
    summary = pd.DataFrame(rows)
    total = {"analysis": "total", **{c: summary[c].sum(min_count=1) for c in summary.columns if c != "analysis"}}
    return pd.concat([summary, pd.DataFrame([total])], ignore_index=True)


def _largest(values: list[float]) -> float:
    """The largest value, NaN if any is NaN (unknown)."""
    return math.nan if any(v != v for v in values) else max(values, default=math.nan)


def job_plan(result: Plan) -> pd.DataFrame:
    """Per run job: its runs, predicted seconds (its runs' predictions plus its start-up: imports and the model's
    load) and the memory to reserve (:func:`helmlite.planning.memory.reservation_mb` of its largest run's predicted
    peak); NaN where a run's prediction is unknown. What the workflow sizes cluster jobs from
    (:func:`helmlite.workflow.run_job_runtime_min`, :func:`helmlite.workflow.run_job_mem_mb`)."""
    seconds = dict(zip(result.runs["run_id"], result.runs["predicted_s"]))
    peaks = dict(zip(result.runs["run_id"], result.runs["peak_mb"])) if "peak_mb" in result.runs else {}
    startup = result.analyses.iloc[-1]["job_startup_s"] / max(1, int(result.analyses.iloc[-1]["run_jobs"]))
    rows = [{"job": job, "runs": len(batch),
             "predicted_s": sum(seconds.get(spec.run_id, math.nan) for spec in batch) + startup,
             "predicted_mem_mb": memory.reservation_mb(_largest([peaks.get(spec.run_id, math.nan) for spec in batch]))}
            for job, batch in result.jobs.items()]
    return pd.DataFrame(rows, columns=["job", "runs", "predicted_s", "predicted_mem_mb"])


def predicted_wall_s(result: Plan, cores: int) -> float:
    """Seconds of run jobs on ``cores`` cores: the total spread evenly, but never less than the longest job
    (a job's runs run one after another; :func:`helmlite.workflow.run_batches` groups them)."""
    total = result.analyses.iloc[-1]
    seconds = dict(zip(result.runs["run_id"], result.runs["predicted_s"]))
    startup = total["job_startup_s"] / max(1, int(total["run_jobs"]))
    longest = max((sum(seconds.get(spec.run_id, 0.0) for spec in batch) + startup for batch in result.jobs.values()),
                  default=0.0)
    even = (total["predicted_run_s"] + total["job_startup_s"]) / max(1, min(cores, int(total["run_jobs"]) or 1))
    return max(even, longest)


def render(result: Plan, cores: int) -> str:
    """The plan as the terminal shows it: per analysis, the headline claims, the slowest runs."""
    summary = result.analyses.copy()
    total = summary.iloc[-1]
    wall = predicted_wall_s(result, cores)
    lines = ["Plan (predicted from this machine's measured rates; cold request cache)", "",
             summary.to_string(index=False, float_format=lambda v: f"{v:,.0f}"), "",
             f"Predicted run compute {total['predicted_run_s']:,.0f} s + job start-up {total['job_startup_s']:,.0f} s "
             f"over {cores} cores ≈ {wall / 60:,.1f} min of run jobs (notebooks not included).", "",
             f"Claims: n and minimum detectable effect (80% power at the level each family decides it at, alpha = 0.05 / "
             f"family size; decidable = mde ≤ {TARGET_MDE})", ""]
    if len(result.claims):
        shown = result.claims[["analysis", "claim", "role", "family_size", "n", "mde", "n_needed", "decidable",
                               "planning"]].assign(
            n_needed=[f"{v:,.0f}" if math.isfinite(v) else "n/a" for v in result.claims["n_needed"]])
        lines.append(shown.rename(columns={"n_needed": f"n_for_{result.claims['effect'].iloc[0]:g}"}).to_string(
            index=False, float_format=lambda v: f"{v:.3f}"))
    runs = result.runs.sort_values(["analysis", "predicted_s"], ascending=[True, False], kind="stable")
    runs = runs.assign(setting=[", ".join(f"{study}: {level}" for study, level in labels) or "-" for labels in runs["labels"]])
    lines += ["", "Every run (slowest first within each analysis; run ids: --format csv --table runs)", "",
              runs[["analysis", "model", "scenario_label", "method", "setting", "perturbations", "instances", "tokens_to_encode",
                    "tokens_to_generate", "predicted_s"]].to_string(index=False, float_format=lambda v: f"{v:,.1f}")]
    absent = result.runs[result.runs["absent_data"] != ""]
    for (label, why), part in absent.groupby(["scenario_label", "absent_data"], sort=True):
        lines += ["", f"(not counted — {len(part)} run(s) of {label}: {why} cannot be obtained here (`helmlite fetch "
                      f"{why}` says why); they show NaN instances, tokens and seconds)"]
    uncounted = sorted(set(result.runs.loc[result.runs["tokens_to_encode"].isna() & (result.runs["absent_data"] == ""),
                                           "model"]))
    if uncounted:
        lines += ["", f"(not counted — no local weights or tokenizer: {', '.join(uncounted)}; their runs show NaN tokens and seconds)"]
    unpriced = sorted(set(result.runs.loc[result.runs["predicted_s"].isna() & result.runs["tokens_to_encode"].notna(), "model"]))
    if unpriced:
        lines += ["", f"(counted, not priced — placed on a GPU or in half precision, where this machine's CPU float32 rates "
                      f"do not hold: {', '.join(unpriced)}; their runs show tokens and NaN seconds)"]
    if result.calibrated:
        lines += ["", f"(measured this machine's rates for {', '.join(result.calibrated)}; cached for the next plan)"]
    for check in check_against_measured(result.runs).itertuples():
        verdict = "within" if check.within_tolerance else (
            "outside; `helmlite plan --recalibrate` adds a calibration (the plan uses the median of the last five)")
        lines += ["", f"Checked against {check.runs} run(s) of {check.model} already measured with every request computed: "
                      f"predicted / measured median {check.median:.2f} (range {check.min:.2f}-{check.max:.2f}), "
                      f"{verdict} ±{CHECK_TOLERANCE:.0%}"]
    return "\n".join(lines)
