"""Notebook 06 — a methods lab for teaching: seven short lessons on the statistics the kit's reports rest on, each a
simulation (or an exact computation) with the package's own functions, a figure and an exercise.

``coverage`` (interval coverage at small n), ``pairing`` (paired vs unpaired tests), ``multiplicity`` (families of
claims), ``detectable`` (power and the MDE), ``clusters`` (items sharing a context), ``seed_noise`` (seeds as noise),
``agreement_words`` (reproduced, consistent, equivalent); ``figures`` draws them. Every random draw is seeded by
purpose (:func:`helmlite.seeds.rng`)."""
from . import agreement_words, clusters, coverage, detectable, figures, multiplicity, pairing, seed_noise
from .agreement_words import equivalent, verdict_rates
from .clusters import design_effect, interval_coverage, simulate_contexts
from .coverage import exact_coverage, lowest_coverage, wald_interval
from .detectable import items_needed, mde_by_n
from .multiplicity import discoveries, error_rates
from .pairing import rejection_rates, simulate_pairs, unpaired_z_p
from .seed_noise import detectable_seed_sd, observed_spread, seed_effects, seeds_needed, simulate_seed_matrix

__all__ = ["agreement_words", "clusters", "coverage", "design_effect", "detectable", "detectable_seed_sd",
           "discoveries", "equivalent", "error_rates", "exact_coverage", "figures", "interval_coverage", "items_needed",
           "lowest_coverage", "mde_by_n", "multiplicity", "observed_spread", "pairing", "rejection_rates", "seed_noise",
           "seed_effects", "seeds_needed", "simulate_contexts", "simulate_pairs", "simulate_seed_matrix", "unpaired_z_p", "verdict_rates",
           "wald_interval"]
