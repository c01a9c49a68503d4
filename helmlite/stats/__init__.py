"""Every interval and test of the kit: bootstrap (percentile, BCa), paired comparisons, correlations."""
from .bootstrap import (Estimate, PairedComparison, bootstrap_ci, bootstrap_distribution, correlation_ci,
                        correlation_difference, paired_difference, paired_test, pearson_r, proportion_ci, spearman_rho,
                        summary)

__all__ = ["Estimate", "PairedComparison", "bootstrap_ci", "bootstrap_distribution", "correlation_ci",
           "correlation_difference", "paired_difference", "paired_test", "pearson_r", "proportion_ci", "spearman_rho",
           "summary"]
