"""Planning values from a pilot: where runs of a config already exist in its results folder, the plan's claims use
what those runs show (discordance, variance, the spread of a contrast over contexts) instead of the fixed planning
values (issue "Design for a decision" §2).

A paired 0/1 claim's power depends on the items on which the two sides differ. The notebooks and ``helmlite compare``
report its MDE with the discordance growing with the effect — ψ = ψ0 + |δ|, ψ0 the items that differ both ways,
observed as ψ̂ − |δ̂| = 2·min(b, c)/n for b and c the two kinds of discordant pairs
(:func:`helmlite.claims.base_discordance`) — and the plan uses the same model. A pilot of 50 items estimates ψ0 with
a standard error of about 0.04, so sizing on the point estimate would leave the full run short of its target power
about half of the time; the plan sizes on the upper limit of a one-sided :data:`PILOT_CONFIDENCE` Clopper–Pearson
interval of ψ0 instead, Browne's (1995, *Statistics in Medicine* 14:1933–1940) rule for a pilot variance: the design
then reaches its power with probability about :data:`PILOT_CONFIDENCE` whatever the pilot drew.

Which claims a pilot informs: those of paired 0/1 comparisons — two runs on the same items (models, seeds, shots,
formats, methods) or a run and its perturbed variants (HELM's robustness and fairness perturbations) — and the seed
variance component of three or more seeds, whose test (Cochran's Q) depends on the mean within-item variance across
seeds: planned at the upper limit of its one-sided :data:`PILOT_CONFIDENCE` χ² interval with n·(S − 1) degrees of
freedom (Browne's rule itself), floored at one item varying as notebook 02 floors it; and a depth curve's U-shape /
recency claim, whose test reads the per-context contrast of the last depth with the first on notebook 04's score
(:func:`helmlite.analyses.depth.sweeps.scores`): its SD across contexts, at the upper limit of the same χ² interval
with contexts − 1 degrees of freedom. The 0 → 1 step claim uses the SD of its per-item contrast with the
next step, (x₁ − x₀) − (x₂ − x₁), at the same kind of upper limit (items − 1 degrees of freedom); a calibration claim
draws its planning confidences from those the pilot's runs gave (the test's power depends on where they lie) instead
of U(1/k, 1); the length claim the SD across contexts of the shortest length's per-context mean score minus the
longest's (notebook 04's length test, paired by context index), at the same kind of upper limit. The plan's
``planning`` column says which values each claim used.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.stats import chi2

from ..results import STATS, RunResultsError, read_run
from ..stats import proportion_ci

PILOT_CONFIDENCE = 0.8
MIN_PILOT_PAIRS = 20  # fewer pilot pairs than this say too little about ψ0 to replace the planning value


def _upper_variance(variance: float, df: int) -> float:
    """The one-sided :data:`PILOT_CONFIDENCE` upper limit of a variance estimated with ``df`` degrees of freedom:
    variance · df / χ²₁₋c(df) (Browne 1995)."""
    return variance * df / float(chi2.ppf(1 - PILOT_CONFIDENCE, df))


def _upper_sd(values: np.ndarray) -> float:
    """The upper limit (:func:`_upper_variance`) of the SD of ``values``, n − 1 degrees of freedom (at least 0.001:
    a pilot whose contrast never varied still leaves room for it to)."""
    return float(np.sqrt(_upper_variance(max(float(np.std(values, ddof=1)), 1e-3) ** 2, len(values) - 1)))


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
        both_ways = 2 * min(a_wins, b_wins)
        upper = proportion_ci(both_ways, n, level=2 * PILOT_CONFIDENCE - 1)[1]
        upper = min(max(upper, 1 / n), 1 - 1 / n)
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
        within = max(float(matrix.var(axis=0, ddof=1).mean()), 1 / (n * seeds))  # ≥ one item varying
        upper = _upper_variance(within, n * (seeds - 1))
        return upper, (f"pilot: within-item variance ≤ {upper:.3f} ({PILOT_CONFIDENCE:.0%} upper limit; {within:.3f} "
                       f"observed over {seeds} seeds × {n} items)")

    def depth_contrast_sd(self, run_id: str) -> tuple[float, str] | None:
        """The planning SD across contexts of a depth run's last-minus-first-depth contrast of notebook 04's score
        and the text that says where it came from; None when the run is missing or has fewer than three contexts."""
        from ..analyses.depth.sweeps import depth_records, scores

        run = self._run(run_id)
        if run is None:
            return None
        rows = depth_records([run])
        rows = rows.assign(score=scores(rows))
        by_depth = rows.pivot_table(index="context", columns="depth", values="score", aggfunc="mean")
        contrast = (by_depth[by_depth.columns.max()] - by_depth[by_depth.columns.min()]).dropna()
        if len(contrast) < 3:
            return None
        upper = _upper_sd(contrast.to_numpy())
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
        upper = _upper_sd(contrast)
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
        from ..analyses.depth.sweeps import depth_records, length_scores

        runs = [self._run(run_id) for run_id in (short, long)]
        if any(run is None for run in runs):
            return None
        means = []
        for run in runs:
            rows = depth_records([run])
            means.append(rows.assign(score=length_scores(rows)).groupby("context")["score"].mean())
        first, second = means[0].align(means[1], join="inner")
        contrast = (first - second).dropna()
        if len(contrast) < 3:
            return None
        upper = _upper_sd(contrast.to_numpy())
        return upper, (f"pilot: SD of the length contrast ≤ {upper:.3f} ({PILOT_CONFIDENCE:.0%} upper limit; "
                       f"{contrast.std(ddof=1):.3f} observed over {len(contrast)} contexts)")
