"""Every interval and test of the kit, each chosen for the statistic it serves; :func:`interval_for` picks among them
from the design (0/1 or continuous values, paired, clustered, smooth statistic with n) and is what the analyses call.

* proportions: Clopper–Pearson intervals (:func:`proportion_ci`, :func:`proportion_estimate`);
* paired 0/1 outcomes: exact McNemar test and Newcombe interval (:func:`paired_binary_test`,
  :func:`paired_binary_difference`); other paired scores: paired bootstrap with p-values from the same
  resamples (:func:`paired_difference`, :func:`paired_test`) or a permutation test
  (:func:`permutation_p_value`);
* means: :func:`mean_estimate` (Clopper–Pearson for 0/1 values, expanded percentile bootstrap otherwise);
* bootstrap: percentile and BCa (n >= 20) intervals (:func:`bootstrap_ci`, :func:`summary`), a p-value and
  its dual interval for any resampled distribution (:func:`bootstrap_p_value`, :func:`percentile_interval`), and
  run-level metrics that are functions of sums over items, through the items' multiplicities (:func:`bootstrap_weighted`);
* rows that share a cluster: :func:`cluster_mean_estimate` (Korn–Graubard for 0/1 or bounded rows,
  :func:`korn_graubard_ci`; a cluster bootstrap otherwise, :func:`cluster_bootstrap_ci`), :func:`cluster_paired_difference`, and any statistic with
  :func:`cluster_bootstrap_statistic`;
* correlations (:func:`correlation_ci`, :func:`correlation_difference`);
* variance: seed variance component and "do seeds matter" (:func:`seed_variance_component`,
  :func:`seeds_matter_test`), ANOVA table (:func:`anova_table`);
* power of the tests used: :func:`mde_proportion`, :func:`mde_paired_growing`, :func:`required_n`, :func:`mde_correlation`, :func:`mde_seed_sd`,
  :func:`required_n_correlation`, and the exact powers :func:`binomial_power`, :func:`mcnemar_power`.

Every ``seed`` takes an int or a ``numpy.random.Generator``.
"""
from .bootstrap import (BCA_MIN_N, bootstrap_ci, bootstrap_distribution, bootstrap_p_value, bootstrap_weighted, mean_estimate,
                        paired_test, percentile_interval, summary)
from .cluster import (cluster_bootstrap_ci, cluster_bootstrap_statistic, cluster_mean_estimate, cluster_paired_difference,
                      korn_graubard_ci)
from .correlation import correlation_ci, correlation_difference, pearson_r, spearman_rho
from .estimates import Estimate, PairedComparison, Seed
from .paired import paired_difference, permutation_p_value
from .policy import interval_for
from .power import (binomial_power, mcnemar_power, mde_correlation, mde_paired_growing, mde_proportion, mde_seed_sd, required_n,
                    required_n_correlation)
from .proportions import (is_binary, newcombe_paired_interval, paired_binary_difference, paired_binary_test,
                          proportion_ci, proportion_estimate)
from .variance import VarianceComponent, anova_table, seed_variance_component, seeds_matter_test, without_rounding_residue

__all__ = ["BCA_MIN_N", "Estimate", "PairedComparison", "Seed", "VarianceComponent", "anova_table",
           "binomial_power", "bootstrap_ci", "bootstrap_distribution", "bootstrap_p_value", "bootstrap_weighted",
           "cluster_bootstrap_ci", "cluster_bootstrap_statistic", "cluster_mean_estimate", "cluster_paired_difference", "korn_graubard_ci", "mcnemar_power", "correlation_ci", "correlation_difference", "interval_for", "is_binary", "mde_correlation",
           "mde_paired_growing", "mde_proportion", "mde_seed_sd", "mean_estimate", "newcombe_paired_interval", "paired_binary_difference", "paired_binary_test",
           "paired_difference", "paired_test", "pearson_r", "percentile_interval", "permutation_p_value", "proportion_ci",
           "proportion_estimate", "required_n", "required_n_correlation", "seed_variance_component",
           "seeds_matter_test", "spearman_rho", "summary", "without_rounding_residue",
           "calibration_test", "power"]  # the submodules other packages use
