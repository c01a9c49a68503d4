"""Coverage of every interval method the kit uses (nominal 95%) and the level of every test (nominal 5%),
on the designs the kit uses. Seeded; the whole script takes a few minutes on 2 cores.

    .venv/bin/python benchmarks/coverage.py            # full
    .venv/bin/python benchmarks/coverage.py --quick    # fewer repetitions (about a minute)

Sections: (1) proportions, exact binomial sums over n = 8…500, p = 0.05…0.95; (2) paired binary
differences (Newcombe vs percentile bootstrap) at n = 20, 50, 200; (3) the clustered depth design
(contexts × depths with a context effect): cluster vs row bootstrap; (4) Spearman over 10–60 models:
BCa vs percentile; (5) the seed variance component; (6) false-positive rates of each test under the
null; (7) the binned ECE of a perfectly calibrated model; (8) clustered 0/1 and bounded rows near 0 and 1
(Korn-Graubard vs the old cluster bootstrap); (9) the ECE claim's test and dual interval; (10) run-level
shares in stats.json; (11) MDEs against the exact power of the test used; (12) false "contradicted"
verdicts in families of true claims; (13) correlations over responses that share a prompt. "±" is one
Monte-Carlo standard error.
"""
from __future__ import annotations

import argparse
import math
import time
from contextlib import contextmanager

import numpy as np
from scipy import stats as sps
from scipy.special import expit
from statsmodels.stats.proportion import proportion_confint

from helmlite import stats
from helmlite.metrics.calibration import debiased_ece, ece_under_perfect_calibration, expected_calibration_error
from helmlite.seeds import rng
from helmlite.stats import bootstrap as _bootstrap
from helmlite.stats.bootstrap import Resampled
from helmlite.stats.cluster import _cluster_distribution, _cluster_sums


def show(title: str, header: list[str], rows: list[list]) -> None:
    print(f"\n## {title}\n")
    cells = [header] + [[c if isinstance(c, str) else (f"{c:.3f}" if isinstance(c, float) else str(c)) for c in row]
                        for row in rows]
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]
    for k, row in enumerate(cells):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def rate(hits: int, total: int) -> str:
    share = hits / total
    return f"{share:.3f} ± {math.sqrt(share * (1 - share) / total):.3f}"


@contextmanager
def bca_at_any_n():
    """Let BCa run below n = 20 (the kit never does; used here only to show why)."""
    saved = _bootstrap.BCA_MIN_N
    _bootstrap.BCA_MIN_N = 0
    try:
        yield
    finally:
        _bootstrap.BCA_MIN_N = saved


# ---------------------------------------------------------------------------------------------- (1)
def proportions() -> None:
    ns, ps = np.arange(8, 501), np.round(np.arange(0.05, 0.951, 0.05), 2)

    def percentile_bootstrap(k, n):  # the B → ∞ limit of the percentile bootstrap of a binomial mean
        return sps.binom.ppf(0.025, n, k / n) / n, sps.binom.ppf(0.975, n, k / n) / n

    methods = {"Clopper-Pearson (kit)": lambda k, n: stats.proportion_ci(k, np.full_like(k, n)),
               "Wilson": lambda k, n: proportion_confint(k, n, method="wilson"),
               "Agresti-Coull": lambda k, n: proportion_confint(k, n, method="agresti_coull"),
               "Jeffreys": lambda k, n: proportion_confint(k, n, method="jeffreys"),
               "percentile bootstrap (old)": percentile_bootstrap}
    rows = []
    for name, interval in methods.items():
        worst, where, total, count, cells = 1.0, None, 0.0, 0, {}
        for n in ns:
            k = np.arange(n + 1)
            low, high = interval(k, n)
            covered = (low[None, :] <= ps[:, None] + 1e-12) & (ps[:, None] - 1e-12 <= high[None, :])
            coverage = (sps.binom.pmf(k[None, :], n, ps[:, None]) * covered).sum(axis=1)
            total, count = total + coverage.sum(), count + len(ps)
            if coverage.min() < worst:
                worst, where = coverage.min(), (int(n), float(ps[coverage.argmin()]))
            if n in (8, 50):
                cells[n] = coverage
        rows.append([name, worst, f"n={where[0]}, p={where[1]:.2f}", total / count,
                     cells[8][list(ps).index(0.8)], cells[8][list(ps).index(0.95)], cells[50][list(ps).index(0.95)]])
    show("1. Proportions: exact coverage (binomial sums), n = 8…500 every n, p = 0.05…0.95",
         ["method", "min", "where", "mean", "n=8 p=.8", "n=8 p=.95", "n=50 p=.95"], rows)
    print("\n8/8 correct: Clopper-Pearson [%.3f, %.3f]; percentile bootstrap [%.0f, %.0f]"
          % (*stats.proportion_ci(8, 8), *percentile_bootstrap(np.array(8), 8)))


# ---------------------------------------------------------------------------------------------- (2)
def paired_binary(reps: int, resamples: int) -> None:
    designs = [("p_b=.6, δ=0, ψ=.3", 0.6, 0.0, 0.3), ("p_b=.6, δ=.1, ψ=.3", 0.6, 0.1, 0.3),
               ("p_b=.85, δ=.05, ψ=.15", 0.85, 0.05, 0.15), ("p_b=.9, δ=.05, ψ=.07", 0.9, 0.05, 0.07)]
    rows = []
    for label, p_b, delta, psi in designs:
        p10, p01 = (psi + delta) / 2, (psi - delta) / 2
        cells = np.array([p_b - p01, p10, p01, 1 - (p_b - p01) - p10 - p01])
        for n in (20, 50, 200):
            g = rng("coverage", "paired-binary", label, n)
            tables = g.multinomial(n, cells, size=reps)
            low, high = stats.newcombe_paired_interval(*tables.T)
            newcombe = np.mean((low <= delta) & (delta <= high))
            boot = g.multinomial(n, tables / n, size=(resamples, reps))  # (B, reps, 4) resampled tables
            diffs = (boot[..., 1] - boot[..., 2]) / n
            hits = disagree = 0
            for r in range(reps):
                lo, hi = Resampled(diffs[:, r]).interval(0.95)
                hits += lo <= delta <= hi
                if delta == 0:
                    p = stats.paired_binary_test(*_pairs(*tables[r]))
                    disagree += (p < 0.05) != (low[r] > 0 or high[r] < 0)
            note = f"{disagree / reps:.3f}" if delta == 0 else ""
            rows.append([label, n, rate(int(round(newcombe * reps)), reps), rate(hits, reps), note])
    show(f"2. Paired binary differences (coverage of p_a − p_b; {reps} data sets, {resamples} resamples)",
         ["design", "n", "Newcombe (kit)", "percentile bootstrap", "Newcombe vs McNemar disagree"], rows)


def _pairs(both, only_a, only_b, neither):
    a = np.repeat([1, 1, 0, 0], [both, only_a, only_b, neither])
    b = np.repeat([1, 0, 1, 0], [both, only_a, only_b, neither])
    return a, b


# ---------------------------------------------------------------------------------------------- (3)
def clustered(reps: int, resamples: int) -> None:
    depths = np.linspace(-0.6, 0.0, 10) ** 2 * 2 - 0.3  # a mild U-shape over 10 depths (logit scale)
    rows = []
    for sd in (0.5, 1.5):
        truth_draws = rng("coverage", "cluster-truth", sd).normal(0, sd, 400_000)
        truth = float(np.mean(expit(1.0 + truth_draws[:, None] + depths[None, :])))
        for contexts in (5, 10, 20, 40):
            g = rng("coverage", "cluster", sd, contexts)
            labels = np.repeat(np.arange(contexts), len(depths))
            cluster_hits = expanded_hits = plain_hits = row_hits = exact_hits = 0
            for r in range(reps):
                p = expit(1.0 + g.normal(0, sd, contexts)[:, None] + depths[None, :]).ravel()
                correct = (g.random(len(p)) < p).astype(float)
                seed = int(g.integers(2**63))
                est = stats.cluster_mean_estimate(correct, labels)
                _, sums, sizes = _cluster_sums(correct, labels)
                boot = _cluster_distribution(sums, sizes, resamples, seed)
                expanded = Resampled(boot, "expanded", n=contexts).interval(0.95)
                plain = Resampled(boot).interval(0.95)
                row = stats.bootstrap_ci(correct, np.mean, method="percentile", n_resamples=resamples, seed=g)
                exact = stats.proportion_estimate(correct)
                cluster_hits += est.ci_low <= truth <= est.ci_high
                expanded_hits += expanded[0] <= truth <= expanded[1]
                plain_hits += plain[0] <= truth <= plain[1]
                row_hits += row.ci_low <= truth <= row.ci_high
                exact_hits += exact.ci_low <= truth <= exact.ci_high
            rows.append([f"context SD {sd} (logit)", f"{contexts} × 10", rate(cluster_hits, reps),
                         rate(expanded_hits, reps), rate(plain_hits, reps), rate(row_hits, reps), rate(exact_hits, reps)])
    show(f"3. Clustered depth design: mean accuracy over contexts × depths ({reps} data sets)",
         ["context effect", "contexts × depths", "Korn-Graubard (kit)", "cluster expanded percentile (old)",
          "cluster plain percentile", "row bootstrap", "Clopper-Pearson on rows"], rows)


# ---------------------------------------------------------------------------------------------- (4)
def spearman(reps: int, resamples: int) -> None:
    rows = []
    for r_true in (0.5, 0.8):
        rho = 6 / math.pi * math.asin(r_true / 2)  # Spearman's ρ of a bivariate normal with Pearson r
        cov = [[1, r_true], [r_true, 1]]
        for n in (10, 20, 40, 60):
            g = rng("coverage", "spearman", r_true, n)
            hits = {"percentile": 0, "bca": 0}
            for _ in range(reps):
                x, y = g.multivariate_normal([0, 0], cov, size=n).T
                seed = int(g.integers(2**63))
                hits["percentile"] += _covers(stats.correlation_ci(x, y, interval="percentile", n_resamples=resamples,
                                                                   seed=seed), rho)
                with bca_at_any_n():
                    hits["bca"] += _covers(stats.correlation_ci(x, y, interval="bca", n_resamples=resamples,
                                                                seed=seed), rho)
            kit = "bca" if n >= stats.BCA_MIN_N else "percentile"
            rows.append([f"ρ_s = {rho:.2f}", n, rate(hits["percentile"], reps), rate(hits["bca"], reps), kit])
    show(f"4. Spearman correlation over n models ({reps} data sets, {resamples} resamples)",
         ["truth", "models", "percentile", "BCa", "kit uses (auto)"], rows)


def _covers(est, value) -> bool:
    return est.ci_low <= value <= est.ci_high


# ---------------------------------------------------------------------------------------------- (5)
def seed_variance(reps: int, resamples: int) -> None:
    rows = []
    for kind in ("normal", "0/1"):
        for seeds, items in ((3, 100), (5, 100), (5, 500), (10, 200)):
            for seed_sd in (0.0, 0.02, 0.05):
                g = rng("coverage", "seed-variance", kind, seeds, items, seed_sd)
                hits = old_hits = zero_low = 0
                for _ in range(reps):
                    effects = g.normal(0, seed_sd, (seeds, 1))
                    if kind == "normal":
                        matrix = effects + g.normal(0, 0.2, (1, items)) + g.normal(0, 0.3, (seeds, items))
                    else:
                        p = np.clip(g.uniform(0.2, 0.8, (1, items)) + effects, 0, 1)
                        matrix = (g.random((seeds, items)) < p).astype(float)
                    component = stats.seed_variance_component(matrix)
                    hits += component.ci_low <= seed_sd**2 <= component.ci_high
                    zero_low += component.ci_low <= 0
                    picks = g.integers(0, items, size=(resamples, items))  # the old item bootstrap
                    old = np.percentile(matrix[:, picks].mean(axis=2).var(axis=0, ddof=1), [2.5, 97.5])
                    old_hits += old[0] <= seed_sd**2 <= old[1]
                rows.append([kind, f"{seeds} × {items}", f"{seed_sd**2:.4f}", rate(hits, reps), rate(old_hits, reps),
                             f"{zero_low / reps:.2f}"])
    show(f"5. Seed variance component: coverage of the true seed variance ({reps} data sets)",
         ["scores", "seeds × items", "true σ²_seed", "ANOVA + MLS (kit)", "item bootstrap of var(seed means) (old)",
          "share with lower bound <= 0"], rows)


# ---------------------------------------------------------------------------------------------- (6)
def false_positives(reps: int, resamples: int) -> None:
    rows = []
    for n in (20, 50, 200):
        g = rng("coverage", "fpr-binary", n)
        mcnemar = boot_bca = boot_pct = 0
        for _ in range(reps):
            both, only_a, only_b, neither = g.multinomial(n, [0.35, 0.15, 0.15, 0.35])
            a, b = _pairs(both, only_a, only_b, neither)
            mcnemar += stats.paired_binary_test(a, b) < 0.05
            seed = int(g.integers(2**63))
            boot_bca += stats.paired_test((a, b), _mean_difference, method="bca", n_resamples=resamples,
                                          seed=seed).significant
            boot_pct += stats.paired_test((a, b), _mean_difference, method="percentile", n_resamples=resamples,
                                          seed=seed).significant
        rows.append(["paired 0/1, p = .5, ψ = .3", n, "exact McNemar (kit)", rate(mcnemar, reps)])
        rows.append(["", n, "bootstrap BCa (old flag)", rate(boot_bca, reps)])
        rows.append(["", n, "bootstrap percentile, (k+1)/(B+1) p", rate(boot_pct, reps)])
    for label, draw in (("normal", lambda g, n: g.normal(size=n)), ("Laplace", lambda g, n: g.laplace(size=n))):
        for n in (20, 50):
            g = rng("coverage", "fpr-continuous", label, n)
            counts = {"expanded": 0, "percentile": 0, "bca": 0, "permutation": 0}
            boot_reps, perm_reps = 3 * reps, reps  # more data sets: these rates sit close to 5%
            for k in range(boot_reps):
                item = g.normal(size=n)
                a, b = item + draw(g, n), item + draw(g, n)
                seed = int(g.integers(2**63))
                for method in ("expanded", "percentile", "bca"):
                    counts[method] += stats.paired_difference(a, b, method=method, n_resamples=resamples,
                                                              seed=seed).significant
                if k < perm_reps:
                    counts["permutation"] += stats.permutation_p_value(a, b, n_resamples=resamples, seed=seed) < 0.05
            first = f"paired continuous, {label} noise"
            rows.append([first, n, f"bootstrap expanded percentile (kit default; {boot_reps} data sets)",
                         rate(counts["expanded"], boot_reps)])
            rows.append(["", n, "bootstrap percentile", rate(counts["percentile"], boot_reps)])
            rows.append(["", n, "bootstrap BCa", rate(counts["bca"], boot_reps)])
            rows.append(["", n, f"permutation ({resamples} flips; {perm_reps} data sets)",
                         rate(counts["permutation"], perm_reps)])
    for seeds, items in ((3, 4), (5, 50), (5, 200), (10, 100)):
        g = rng("coverage", "fpr-seeds", seeds, items)
        q = f = 0
        for _ in range(reps):
            difficulty = g.uniform(0.1, 0.9, (1, items))
            q += stats.seeds_matter_test((g.random((seeds, items)) < difficulty).astype(float))[0] < 0.05
            f += stats.seeds_matter_test(g.normal(size=(1, items)) + g.normal(size=(seeds, items)))[0] < 0.05
        rows.append([f"seeds × items {seeds} × {items}", seeds * items, "Cochran's Q (0/1)", rate(q, reps)])
        exact = math.factorial(seeds) ** (items - 1) <= 10_000
        rows.append(["", seeds * items, "within-item permutation, exact (continuous; tiny design)" if exact
                     else "two-way ANOVA F (continuous)", rate(f, reps)])
    show(f"6. False-positive rate under the null at α = 0.05 ({reps} data sets, {resamples} resamples)",
         ["design", "n", "test", "rejection rate"], rows)


def _mean_difference(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


# ---------------------------------------------------------------------------------------------- (7)
def calibration(reps: int) -> None:
    rows = []
    for n in (8, 50, 500):
        g = rng("coverage", "ece", n)
        confidence = g.uniform(0.25, 1.0, n)
        expected = ece_under_perfect_calibration(confidence, n_simulations=2000, seed=g)
        binned, debiased = [], []
        for _ in range(reps):
            correct = (g.random(n) < confidence).astype(float)
            binned.append(expected_calibration_error(confidence, correct))
            debiased.append(debiased_ece(confidence, correct))
        rows.append([n, float(np.mean(binned)), expected["mean"], expected["q95"], float(np.mean(debiased)),
                     float(np.std(debiased) / math.sqrt(reps))])
    show(f"7. ECE-10 of a perfectly calibrated model (confidence ~ U(0.25, 1); {reps} data sets)",
         ["n", "mean binned ECE", "ece_under_perfect_calibration mean", "q95", "mean debiased ECE²", "± SE"], rows)


# ---------------------------------------------------------------------------------------------- (8)
def clustered_boundaries(reps: int, resamples: int) -> None:
    """0/1 rows in clusters of 6 (beta-binomial: cluster rates ~ Beta with the given mean and ICC), and
    win-rate-like bounded rows: Korn-Graubard (kit) vs the old cluster expanded percentile clipped to [0, 1]."""
    rows, worst, worst_old = [], 1.0, 1.0
    for groups in (5, 10, 20, 50):
        for mean in (0.02, 0.05, 0.5, 0.9, 0.98):
            cells = []
            for icc in (0.0, 0.1, 0.3, 0.5):
                g = rng("coverage", "cluster-boundary", groups, mean, icc)
                rates = np.full((reps, groups), mean) if icc == 0 else \
                    g.beta(mean * (1 / icc - 1), (1 - mean) * (1 / icc - 1), size=(reps, groups))
                counts = g.binomial(6, rates)
                labels = np.repeat(np.arange(groups), 6)
                kit = old = zero = 0
                for r in range(reps):
                    values = (np.arange(6)[None, :] < counts[r][:, None]).astype(float).ravel()
                    est = stats.cluster_mean_estimate(values, labels)
                    kit += est.ci_low <= mean <= est.ci_high
                    _, sums, sizes = _cluster_sums(values, labels)
                    low, high = Resampled(_cluster_distribution(sums, sizes, resamples, r), "expanded",
                                          n=groups).interval(0.95)
                    low, high = max(low, 0.0), min(high, 1.0)
                    old += low <= mean <= high
                    zero += high - low <= 0
                worst, worst_old = min(worst, kit / reps), min(worst_old, old / reps)
                cells.append(f"{kit / reps:.3f} / {old / reps:.3f} ({zero / reps:.0%})")
            rows.append([groups, mean, *cells])
    show(f"8a. Clustered 0/1 rows at the boundaries: coverage Korn-Graubard (kit) / old cluster bootstrap "
         f"(its zero-width share); 6 rows per cluster, {reps} data sets",
         ["clusters", "mean", "ICC 0", "ICC 0.1", "ICC 0.3", "ICC 0.5"], rows)
    print(f"\nminimum coverage: Korn-Graubard {worst:.3f}, old cluster bootstrap {worst_old:.3f} (nominal 0.95)")
    rows = []
    for groups, top in ((16, 0.7), (16, 0.3), (30, 0.5)):  # share of scenarios a strong model wins outright
        g = rng("coverage", "win-rates", groups, top)
        kit = old = 0
        for r in range(reps):
            outright = g.random(groups) < top  # a win rate of 1.0, else k of 30 comparisons won
            beaten = np.where(outright, 30, g.binomial(30, g.beta(8, 2, groups)))
            values = np.repeat(beaten / 30, 2)  # two metric columns per scenario
            labels = np.repeat(np.arange(groups), 2)
            truth = top + (1 - top) * 0.8
            est = stats.cluster_mean_estimate(values, labels, bounds=(0.0, 1.0))
            kit += est.ci_low <= truth <= est.ci_high
            _, sums, sizes = _cluster_sums(values, labels)
            low, high = Resampled(_cluster_distribution(sums, sizes, resamples, r), "expanded", n=groups).interval(0.95)
            old += low <= truth <= min(high, 1.0)
        rows.append([groups, f"{top:.0%} of scenarios at 1.0", rate(kit, reps), rate(old, reps)])
    show(f"8b. Win rates over scenarios (values in [0, 1], two columns per scenario; {reps} data sets)",
         ["scenarios", "design", "Korn-Graubard, bounds (0, 1) (kit)", "old cluster expanded percentile"], rows)

    rows = []
    for groups in (5, 10, 30):
        for delta in (0.0, 0.1):
            g = rng("coverage", "cluster-paired", groups, delta)
            covered = rejected = zero = 0
            labels = np.repeat(np.arange(groups), 6)
            for _ in range(reps):
                ease = g.beta(2, 2, groups)[labels]  # a shared difficulty per cluster (the pairing's unit too)
                a = (g.random(len(labels)) < np.clip(ease + delta / 2, 0, 1)).astype(float)
                b = (g.random(len(labels)) < np.clip(ease - delta / 2, 0, 1)).astype(float)
                diff = stats.cluster_paired_difference(a, b, labels, n_resamples=resamples, seed=int(g.integers(2**31)))
                covered += diff.ci_low <= delta <= diff.ci_high
                rejected += diff.significant
                zero += diff.ci_high - diff.ci_low <= 0
            rows.append([groups, delta, rate(covered, reps), rate(rejected, reps), zero])
    show(f"8c. Paired 0/1 outcomes in clusters of 6 (cluster bootstrap, p from the same resamples; ± the bound of "
         f"the discordant share when no row differs; "
         f"{reps} data sets)", ["clusters", "true difference", "coverage", "rejects 0 (level at 0, power else)",
                                "zero-width intervals"], rows)


# ---------------------------------------------------------------------------------------------- (9)
def ece_claim(reps: int) -> None:
    """The calibration claim: the test of perfect calibration (level) and its dual interval for the
    calibration error θ = mean |P(correct | c) − c| (coverage), on overconfident/underconfident shift models
    and on temperature-scaled models (outside the interval's family)."""
    from helmlite.metrics.calibration import _EceSimulation, calibration_error_test

    designs = [("calibrated", lambda c: c), ("overconfident by 0.1", lambda c: np.clip(c - 0.1, 0, 1)),
               ("underconfident by 0.1", lambda c: np.clip(c + 0.1, 0, 1)),
               ("temperature 2 (overconfident)", lambda c: expit(np.log(c / (1 - c)) / 2)),
               ("temperature 0.5 (underconfident)", lambda c: expit(np.log(c / (1 - c)) * 2))]
    rows = []
    for n in (20, 50, 100):
        for label, truth_of in designs:
            g = rng("coverage", "ece-claim", n, label)
            covered = rejected = inside = 0
            for r in range(reps):
                confidence = g.uniform(0.5, 0.99, n)
                accuracy = truth_of(confidence)
                truth = float(np.mean(np.abs(accuracy - confidence)))
                test = calibration_error_test(confidence, g.random(n) < accuracy, n_simulations=499, seed=r,
                                              iterations=20)
                covered += test.ci_low <= truth + 1e-9 <= test.ci_high + 2e-9
                rejected += test.p_two_sided < 0.05
                inside += test.ci_low <= test.estimate <= test.ci_high
            rows.append([n, label, rate(covered, reps), rate(rejected, reps), f"{inside / reps:.3f}"])
    levels = []
    for n in (20, 50, 100):  # the test alone on many calibrated data sets: its level
        g = rng("coverage", "ece-level", n)
        rejected = 0
        for r in range(10 * reps):
            confidence = g.uniform(0.5, 0.99, n)
            simulation = _EceSimulation(confidence, 10, 499, r)
            observed = simulation.ece((g.random(n) < confidence)[simulation.order].astype(float))
            rejected += (1 + np.sum(simulation.simulate() >= observed - 1e-12)) / 500 < 0.05
        levels.append(f"n = {n}: {rate(rejected, 10 * reps)}")
    rows.append(["", f"level of the test alone ({10 * reps} calibrated data sets)", "; ".join(levels), "", ""])
    show(f"9. The ECE claim: coverage of θ by the dual interval (two-sided 95%) and the two-sided test's rejection rate "
         f"(its level on the calibrated rows; power elsewhere); {reps} data sets, 499 simulations",
         ["n", "model", "coverage (kit)", "rejects 'calibrated'", "estimate inside its interval"], rows)


# ---------------------------------------------------------------------------------------------- (10)
def run_level_shares() -> None:
    """Shares of 0/1 items in stats.json (selective_acc@10 on its top ⌊0.1n⌋+1 items, BBQ accuracies):
    exact coverage by binomial sums of Clopper-Pearson (kit) and of the percentile bootstrap (old, its
    B → ∞ limit), and the old interval at 0 correct."""
    rows = []
    for n in (2, 4, 6, 11, 21, 51):
        for p in (0.05, 0.5, 0.9):
            k = np.arange(n + 1)
            low, high = stats.proportion_ci(k, np.full_like(k, n))
            boot_low, boot_high = sps.binom.ppf(0.025, n, k / n) / n, sps.binom.ppf(0.975, n, k / n) / n
            weights = sps.binom.pmf(k, n, p)
            rows.append([n, p, float(weights[(low <= p) & (p <= high)].sum()),
                         float(weights[(boot_low <= p) & (p <= boot_high)].sum())])
    show("10. Run-level shares in stats.json: exact coverage (binomial sums)",
         ["items", "p", "Clopper-Pearson (kit)", "percentile bootstrap (old)"], rows)
    print("\n0 of 6 correct: Clopper-Pearson [%.3f, %.3f]; percentile bootstrap [0, 0]" % stats.proportion_ci(0, 6))


# ---------------------------------------------------------------------------------------------- (11)
def mde_power() -> None:
    """Reported MDEs against the exact power of the test used at that MDE (the kit's exact MDEs, and the
    normal approximations they replace)."""
    rows = []
    z_a, z_b = sps.norm.ppf(0.975), sps.norm.ppf(0.8)
    for psi in (0.2, 0.5):
        for n in (20, 50, 100, 200):
            mde = stats.mde_proportion(n, paired=True, discordance=psi)
            connor = _connor_mde(n, psi, z_a, z_b)
            rows.append([f"paired, ψ = {psi}", n, mde, stats.mcnemar_power(n, mde, psi) if math.isfinite(mde) else math.nan,
                         connor,
                         stats.mcnemar_power(n, connor, psi) if math.isfinite(connor) else math.nan])
    for p, direction in ((0.5, "greater"), (0.9, "less"), (0.05, "greater"), (0.25, "two-sided")):
        powers, old_powers = [], []
        for n in range(10, 201):
            mde = stats.mde_proportion(n, p=p, one_sample=True, direction=direction)
            ups = {"greater": [True], "less": [False], "two-sided": [True, False]}[direction]
            if math.isfinite(mde):
                powers.append(min(stats.binomial_power(n, p, p + mde if up else p - mde) for up in ups))
            old = min(c for c in (_arcsine_one_sample(n, p, up, z_a, z_b) for up in (True, False)) if math.isfinite(c[0]))
            old_powers.append(stats.binomial_power(n, p, old[1]))
        rows.append([f"one proportion, p = {p}, {direction}", "10–200", "monotone",
                     f"{min(powers):.3f}–{max(powers):.3f} (median {np.median(powers):.3f})", "old (smaller direction)",
                     f"{min(old_powers):.3f}–{max(old_powers):.3f}"])
    show("11. MDEs and the exact power of the test used at them (nominal 0.80)",
         ["design", "n", "MDE (kit)", "exact power (kit)", "normal approximation (old)", "its exact power"], rows)


def _connor_mde(n, psi, z_a, z_b):
    from scipy.optimize import brentq

    def excess(delta):
        return z_a * math.sqrt(psi) + z_b * math.sqrt(max(0.0, psi - delta**2)) - delta * math.sqrt(n)
    return math.inf if excess(psi) > 0 else brentq(excess, 1e-12, psi)


def _arcsine_one_sample(n, p, up, z_a, z_b):
    """The old one-sample MDE: arcsine approximation, the smaller of the two directions (value, target p)."""
    angle = math.asin(math.sqrt(p)) + (1 if up else -1) * (z_a + z_b) / math.sqrt(n) / 2
    if not 0 <= angle <= math.pi / 2:
        return math.inf, math.nan
    target = math.sin(angle) ** 2
    return abs(target - p), target


# ---------------------------------------------------------------------------------------------- (12)
def contradictions(reps: int) -> None:
    """Families of true claims: how often at least one reads 'contradicted' (nominal ≤ 0.05). Each claim is
    true at its edge: "greater" with the truth at the null, or a claimed size the truth equals."""
    from helmlite.claims import Claim, claims_table

    z = sps.norm.ppf(0.975)
    rows = []
    for size in (5, 10, 25):
        g = rng("coverage", "contradicted", size)
        counts = {"holm": 0, "none": 0}
        for _ in range(reps):
            estimates = g.normal(0, 0.01, size)
            family = [Claim(f"c{k}", "q", e + (0.05 if k % 2 else 0.0), e + (0.05 if k % 2 else 0.0) - z * 0.01,
                            e + (0.05 if k % 2 else 0.0) + z * 0.01, 0.0, 100,
                            claimed_effect=0.05 if k % 2 else None) for k, e in enumerate(estimates)]
            for correction in counts:
                counts[correction] += (claims_table(family, correction=correction)["verdict"] == "contradicted").any()
        rows.append([size, rate(counts["holm"], reps), rate(counts["none"], reps)])
    show(f"12. Families of true claims: share with at least one false 'contradicted' ({reps} families; half "
         f"the claims at their null, half at their claimed size)", ["claims", "Holm over the family (kit)",
                                                                    "uncorrected (old)"], rows)



# ---------------------------------------------------------------------------------------------- (13)
def prompt_clusters(reps: int) -> None:
    """HelpSteer2's design: two responses per prompt share the prompt's effect on both ratings (noise SD 0.5, so
    the prompt explains 80% of each rating); Pearson r
    over responses, resampling responses (old) vs prompts (kit), coverage of the population r."""
    rows = []
    for prompts, share in ((100, 0.5), (300, 0.8)):
        g = rng("coverage", "prompt-clusters", prompts, share)
        big = g.normal(size=(400_000, 2))
        shared_x, shared_y = big[:, 0], share * big[:, 0] + math.sqrt(1 - share**2) * big[:, 1]
        truth = float(np.corrcoef(shared_x + 0.5 * g.normal(size=400_000), shared_y + 0.5 * g.normal(size=400_000))[0, 1])
        kit = old = 0
        labels = np.repeat(np.arange(prompts), 2)
        for r in range(reps):
            effect = g.normal(size=(prompts, 2))
            x = effect[labels, 0] + 0.5 * g.normal(size=2 * prompts)
            y = share * effect[labels, 0] + math.sqrt(1 - share**2) * effect[labels, 1] + 0.5 * g.normal(size=2 * prompts)
            est = stats.cluster_bootstrap_statistic((x, y), stats.pearson_r, labels, n_resamples=999, seed=r)
            kit += est.ci_low <= truth <= est.ci_high
            row = stats.correlation_ci(x, y, correlation="pearson", n_resamples=999, seed=r)
            old += row.ci_low <= truth <= row.ci_high
        rows.append([prompts, f"{truth:.2f}", rate(kit, reps), rate(old, reps)])
    show(f"13. Correlations over responses that share a prompt (2 per prompt; {reps} data sets)",
         ["prompts", "true r", "prompts resampled (kit)", "responses resampled (old)"], rows)

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (about a minute)")
    args = parser.parse_args()
    reps, resamples = (300, 499) if args.quick else (1000, 999)
    started = time.perf_counter()
    print(f"# Coverage (nominal 95%) and test level (nominal 5%){' — quick' if args.quick else ''}")
    proportions()
    paired_binary(reps=2 * reps, resamples=resamples)
    clustered(reps=reps // 2, resamples=1999)  # the expanded interval with 5 clusters needs B > ~1,100
    spearman(reps=reps // 3, resamples=resamples)
    seed_variance(reps=reps, resamples=max(199, resamples // 3))
    false_positives(reps=reps, resamples=resamples)
    calibration(reps=reps)
    clustered_boundaries(reps=reps // 2, resamples=1999)
    ece_claim(reps=reps // 5)
    run_level_shares()
    mde_power()
    contradictions(reps=reps)
    prompt_clusters(reps=reps // 3)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
