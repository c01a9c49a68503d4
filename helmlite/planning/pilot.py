"""Planning values from a pilot: where runs of a config already exist in its results folder, the plan's claims use
what those runs show (discordance, variance, the spread of a contrast over contexts) instead of the fixed planning
values.

A pilot's estimate is itself noisy: sizing on it would leave the full run short of its power about half of the time.
Each value the plan takes is therefore a one-sided upper limit that covers its parameter with probability at least
:data:`PILOT_CONFIDENCE` (0.8; Browne 1995, *Statistics in Medicine* 14:1933–1940, for the rule), so a design sized on
it reaches its power with at least that probability:

* **paired claims** — the two-way discordance ψ0 = 2·min(p_b, p_c) of the planning model ψ = ψ0 + abs(δ)
  (:func:`helmlite.claims.base_discordance`; p_b, p_c the shares of the two kinds of discordant pairs). 2·min(b, c) is
  not Binomial(n, ψ0) (a Clopper–Pearson limit on it covered 0.70–0.83), so the limit is 2·min(U_b, U_c) with U_b, U_c
  one-sided Clopper–Pearson limits at 1 − (1 − 0.8)/2 = 0.9 each: both cover with probability ≥ 0.8 (Bonferroni), and
  then so does the minimum. Exact enumeration over every pilot outcome (``tests/test_pilot_coverage.py``) gives
  coverage 0.81–1.00 at n = 30/50/100, ψ0 = 0.05–0.3 and δ = 0–0.1 (1.00 where a small pilot cannot tell ψ0 from 0).
* **the seed variance component** (three or more seeds, Cochran's Q) — the mean within-item variance across S seeds
  of 0/1 scores is at most v_max·P(an item varies), v_max = ⌊S/2⌋⌈S/2⌉/(S(S − 1)) (exactly so for S ≤ 3); the limit is
  v_max times the one-sided 0.8 Clopper–Pearson limit on the share of items that vary: exact coverage ≥ 0.8
  (enumerated: 0.82–0.99 for 3 and 5 seeds, 30–100 items, a share of 0.05–0.5 varying).
* **the 0 → 1 step's contrast** (x₁ − x₀) − (x₂ − x₁) of 0/1 scores, whose values lie in {−2, …, 2}: its variance is
  at most E[c²] = P(|c| = 1) + 4·P(|c| = 2), each share at a 90% Clopper–Pearson limit (Bonferroni): exact coverage
  ≥ 0.8 however rarely the levels disagree (enumerated: 0.97–1.00 at ψ = 0.05–0.4, n = 30/50/100), at a median
  about 5–15% above Bonett's limit below, which covered only 0.75 at ψ = 0.05 and n = 30.
* **contrast SDs over contexts** (a depth curve's end − start per context, the length contrast) — Bonett's (2006,
  *Computational Statistics & Data Analysis* 50:775–782) kurtosis-adjusted upper limit for a standard deviation, at a
  nominal one-sided level of :data:`SD_NOMINAL` = 0.9. The χ² limit assumes normal data and covered 0.55–0.76 on
  0/1-based contrasts; Bonett at 0.8 covered 0.73–0.83. At 0.9 the simulated coverage over realistic bounded contrasts
  (``tests/test_pilot_coverage.py``, 4,000 pilots each) is 0.88–0.93 at n = 30/50/100 — per-context accuracy
  differences over 3–5 items per depth and P(gold) differences.

A calibration claim draws its planning confidences from those the pilot's runs gave (the test's power depends on where
they lie) instead of U(1/k, 1). The plan's ``planning`` column says which values each claim used.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.special import ndtri

from ..results import STATS, RunResultsError, read_run
from ..stats import proportion_ci

PILOT_CONFIDENCE = 0.8  # the coverage every pilot limit has (module docstring)
SD_NOMINAL = 0.9  # the nominal one-sided level of Bonett's SD limit that gives PILOT_CONFIDENCE on 0/1-based contrasts
MIN_PILOT_PAIRS = 20  # fewer pilot pairs than this say too little about ψ0 to replace the planning value
MIN_SD = 1e-3  # a pilot whose contrast never varied still leaves room for it to


def upper_proportion(k: int, n: int, confidence: float) -> float:
    """The one-sided ``confidence`` Clopper–Pearson upper limit of a proportion from k of n (exact coverage)."""
    return float(proportion_ci(k, n, level=2 * confidence - 1)[1])


def upper_base_discordance(a_wins: int, b_wins: int, n: int, confidence: float = PILOT_CONFIDENCE) -> float:
    """The upper limit of ψ0 = 2·min(p_b, p_c) that covers with probability ≥ ``confidence``: 2·min(U_b, U_c), each a
    one-sided Clopper–Pearson limit at 1 − (1 − confidence)/2 (module docstring), kept within [1/n, 1 − 1/n] (the
    planning model needs 0 < ψ0 < 1)."""
    each = 1 - (1 - confidence) / 2
    return min(max(2 * min(upper_proportion(a_wins, n, each), upper_proportion(b_wins, n, each)), 1 / n), 1 - 1 / n)


def upper_within_variance(matrix: np.ndarray, confidence: float = PILOT_CONFIDENCE) -> float:
    """The upper limit of the mean within-item variance across the seeds (rows) of a 0/1 seeds × items matrix:
    v_max times the one-sided Clopper–Pearson limit of the share of items that vary (module docstring)."""
    seeds, n = matrix.shape
    largest = (seeds // 2) * (seeds - seeds // 2) / (seeds * (seeds - 1))
    varying = int(np.sum(matrix.min(axis=0) != matrix.max(axis=0)))
    return largest * upper_proportion(varying, n, confidence)


def upper_sd_of_steps(contrast: np.ndarray, confidence: float = PILOT_CONFIDENCE) -> float:
    """The upper limit of the SD of the 0 → 1 step contrast (x₁ − x₀) − (x₂ − x₁) of 0/1 scores, whose values lie in
    {−2, …, 2}: var ≤ E[c²] = P(|c| = 1) + 4·P(|c| = 2), each share at its one-sided Clopper–Pearson limit at
    1 − (1 − confidence)/2 (Bonferroni: both cover with probability ≥ ``confidence``, and then so does the sum) — exact,
    and valid however rarely the shot levels disagree (module docstring)."""
    magnitude = np.abs(np.asarray(contrast)).round()
    n, each = len(magnitude), 1 - (1 - confidence) / 2
    second_moment = sum(m * m * upper_proportion(int(np.sum(magnitude == m)), n, each) for m in (1, 2))
    return float(max(np.sqrt(second_moment), MIN_SD))


def upper_sd(values: np.ndarray, nominal: float = SD_NOMINAL) -> float:
    """Bonett's (2006, eq. 3 and its trimmed-mean kurtosis estimate) one-sided ``nominal`` upper limit of the SD of
    ``values``: exp(½·[ln(c·s²) + z·c·√((γ̂₄ − (n − 3)/n)/(n − 1))]), c = n/(n − z), γ̂₄ = n·Σ(y − m)⁴/(Σ(y − ȳ)²)² with m
    the mean trimmed by 1/(2√(n − 4)) at each end; at least :data:`MIN_SD`."""
    y = np.asarray(values, float)
    n = len(y)
    variance = max(float(np.var(y, ddof=1)), MIN_SD ** 2)
    ordered = np.sort(y)
    cut = int(n / (2 * np.sqrt(n - 4))) if n > 4 else 0
    middle = ordered[cut:n - cut].mean()
    squares = float(np.sum((y - y.mean()) ** 2))
    kurtosis = n * float(np.sum((y - middle) ** 4)) / squares ** 2 if squares > 0 else 3.0
    z = float(ndtri(nominal))
    c = n / (n - z)
    spread = c * np.sqrt(max(kurtosis - (n - 3) / n, 0.0) / (n - 1))
    return float(max(np.sqrt(np.exp(np.log(c * variance) + z * spread)), MIN_SD))


class Pilot:
    """The runs of a results folder, read when a claim asks for them (each once); ``aliases`` maps a planned run id
    to the run that stands for it (a design's sized run → the pilot run of the same specification)."""

    def __init__(self, results_dir: str | Path, aliases: dict[str, str] | None = None):
        self.results_dir = Path(results_dir)
        self.aliases = aliases or {}
        self._runs: dict = {}

    def _run(self, run_id: str):
        run_id = self.aliases.get(run_id, run_id)
        if run_id not in self._runs:
            try:  # a folder that is not a finished run (one the workflow would rebuild) is no pilot
                self._runs[run_id] = read_run(self.results_dir, run_id) if (self.results_dir / run_id / STATS).is_file() \
                    else None
            except RunResultsError:
                self._runs[run_id] = None
        return self._runs[run_id]

    def _correct(self, run_id: str, perturbation: str | None = None) -> dict[str, bool] | None:
        """Instance id → whether the run answered it correctly (its ``perturbation`` variant's answer when given);
        None when the run is not in the folder."""
        run = self._run(run_id)
        if run is None:
            return None
        out = {}
        for record in run.records:
            outcome = record if perturbation is None else record.perturbed.get(perturbation)
            if outcome is not None and outcome.correct is not None:
                out[record.id] = bool(outcome.correct)
        return out

    def _aligned(self, outcomes: list[tuple[str, str | None]], minimum: int = MIN_PILOT_PAIRS) -> np.ndarray | None:
        """0/1 correctness of each (run, perturbation or None) of ``outcomes`` on the items they all answered, one row
        each, items in id order; None when a run is missing or they share fewer than ``minimum`` items."""
        answers = [self._correct(run_id, perturbation) for run_id, perturbation in outcomes]
        if any(a is None for a in answers):
            return None
        shared = sorted(set(answers[0]).intersection(*answers[1:]))
        return np.array([[a[i] for i in shared] for a in answers], float) if len(shared) >= minimum else None

    def paired_base_discordance(self, pairs: list[tuple[str, str | None, str, str | None]]) -> tuple[float, str] | None:
        """The planning ψ0 of a paired claim over ``pairs`` — (run a, its perturbation or None, run b, its
        perturbation or None), pooled — and the text that says where it came from; None when a run is missing or
        the pilot has fewer than :data:`MIN_PILOT_PAIRS` shared items."""
        a_wins = b_wins = n = 0
        for run_a, perturbation_a, run_b, perturbation_b in pairs:
            matrix = self._aligned([(run_a, perturbation_a), (run_b, perturbation_b)], minimum=0)
            if matrix is None:
                return None
            first, second = matrix.astype(bool)
            a_wins += int(np.sum(first & ~second))
            b_wins += int(np.sum(~first & second))
            n += matrix.shape[1]
        if n < MIN_PILOT_PAIRS:
            return None
        upper = upper_base_discordance(a_wins, b_wins, n)
        text = (f"pilot: ψ0 ≤ {upper:.3f} ({PILOT_CONFIDENCE:.0%} upper limit; {a_wins}+{b_wins} of {n} pairs "
                f"discordant)")
        return upper, text

    def seed_within_variance(self, run_ids: list[str]) -> tuple[float, str] | None:
        """The planning within-item variance across the seeds of ``run_ids`` (one run per seed, same items) and the
        text that says where it came from; None when a run is missing or they share fewer than
        :data:`MIN_PILOT_PAIRS` items."""
        matrix = self._aligned([(run_id, None) for run_id in run_ids])  # seeds × items, as notebook 02 aligns them
        if matrix is None:
            return None
        seeds, n = matrix.shape
        within = float(matrix.var(axis=0, ddof=1).mean())
        upper = upper_within_variance(matrix)
        return upper, (f"pilot: within-item variance ≤ {upper:.3f} ({PILOT_CONFIDENCE:.0%} upper limit; {within:.3f} "
                       f"observed over {seeds} seeds × {n} items)")

    def depth_contrast_sd(self, run_id: str) -> tuple[float, str] | None:
        """The planning SD across contexts of a depth run's last-minus-first-depth contrast of notebook 04's score
        and the text that says where it came from; None when the run is missing or has fewer than three contexts."""
        from ..analyses.depth import depth_records, sweeps  # notebook 04's own score: the statistic it will test

        run = self._run(run_id)
        if run is None:
            return None
        rows = depth_records([run])
        rows = rows.assign(score=sweeps.scores(rows))
        by_depth = rows.pivot_table(index="context", columns="depth", values="score", aggfunc="mean")
        contrast = (by_depth[by_depth.columns.max()] - by_depth[by_depth.columns.min()]).dropna()
        if len(contrast) < 3:
            return None
        upper = upper_sd(contrast.to_numpy())
        return upper, (f"pilot: SD of end − start ≤ {upper:.3f} ({PILOT_CONFIDENCE:.0%} upper limit; "
                       f"{contrast.std(ddof=1):.3f} observed over {len(contrast)} contexts)")

    def step_contrast_sd(self, zero: str, one: str, two: str) -> tuple[float, str] | None:
        """The planning SD of the per-item contrast (x₁ − x₀) − (x₂ − x₁) of three shot levels' runs and its text;
        None when a run is missing or they share fewer than :data:`MIN_PILOT_PAIRS` items."""
        matrix = self._aligned([(zero, None), (one, None), (two, None)])
        if matrix is None:
            return None
        x0, x1, x2 = matrix
        contrast = (x1 - x0) - (x2 - x1)
        upper = upper_sd_of_steps(contrast)
        return upper, (f"pilot: SD of the step contrast ≤ {upper:.3f} ({PILOT_CONFIDENCE:.0%} upper limit; "
                       f"{np.std(contrast, ddof=1):.3f} observed over {len(contrast)} items)")

    def confidences(self, run_ids: list[str]) -> tuple[list[np.ndarray], str] | None:
        """Each run's confidences (the probability its calibration metrics use), to draw planning confidences from,
        and the text that says so; None when a run is missing or has fewer than :data:`MIN_PILOT_PAIRS`."""
        pools = []
        for run_id in run_ids:
            run = self._run(run_id)
            values = [r.confidence for r in run.records if r.confidence is not None] if run is not None else []
            if len(values) < MIN_PILOT_PAIRS:
                return None
            pools.append(np.array(values, float))
        return pools, f"pilot: confidences drawn from the {sum(len(p) for p in pools)} the runs gave"

    def length_contrast_sd(self, short: str, long: str) -> tuple[float, str] | None:
        """The planning SD across contexts of notebook 04's length contrast — a context's mean score over its depths
        at the shortest length minus at the longest (:func:`helmlite.analyses.depth.sweeps.length_scores`, paired by
        context index) — of the runs ``short`` and ``long``, and its text; None when a run is missing or they share
        fewer than three contexts."""
        from ..analyses.depth import depth_records, sweeps  # notebook 04's own score: the statistic it will test

        runs = [self._run(run_id) for run_id in (short, long)]
        if any(run is None for run in runs):
            return None
        means = []
        for run in runs:
            rows = depth_records([run])
            means.append(rows.assign(score=sweeps.length_scores(rows)).groupby("context")["score"].mean())
        first, second = means[0].align(means[1], join="inner")
        contrast = (first - second).dropna()
        if len(contrast) < 3:
            return None
        upper = upper_sd(contrast.to_numpy())
        return upper, (f"pilot: SD of the length contrast ≤ {upper:.3f} ({PILOT_CONFIDENCE:.0%} upper limit; "
                       f"{contrast.std(ddof=1):.3f} observed over {len(contrast)} contexts)")
