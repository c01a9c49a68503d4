"""The reproduction of HELM v0.4.0's leaderboard: mean win rates recomputed from the published cells beside the published
column, per group (:func:`win_rate_comparison`), the reproduction table's rows and the words that explain the gaps."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from ...errors import DataError
from ...leaderboards import WIN_RATE, RankingView, with_defaults
from ...leaderboards.winrates import check_tie_rule
from ...claims.reproduction import decide, published_verdict, row
from .published import published_win_rates, tie_share
from .reference import REPRODUCTION_TARGETS, ROUNDING


def _group_verdict(group: str, abs_diff: pd.Series, inside: pd.Series) -> tuple[str, str]:
    """A metric group's verdict in :data:`helmlite.claims.reproduction.VERDICTS` words, and its note."""
    target = REPRODUCTION_TARGETS.get(group)
    word = decide(target is not None and abs_diff.max() <= target + 1e-12, bool(inside.all()))
    notes = {"reproduced": f"max |Δ| ≤ {target}", "consistent": "every published value inside its tie range (rounding)",
             "differs": f"{int((~inside).sum())} model(s) outside the tie range"}
    return word, notes[word]


def win_rate_comparison(frame: pd.DataFrame, groups, *, tie_rule: str = "v0.4.0") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Recomputed vs published mean win rate per model × group, and per group a summary.

    Rows: ``group, model, published, ours`` (``tie_rule``), ``abs_diff``, ``ours_half`` / ``abs_diff_half``
    (half credit for ties and contaminated cells ranked, HELM v0.5.4 and later: the sensitivity), ``tie_range_low`` / ``tie_range_high`` (the win rates that
    breaking ties among equal displayed values either way allows) and ``within_tie_range`` (the published
    value inside that range, give or take its own rounding). Summary per group: models compared, Kendall τ,
    median / mean / max |Δ| for both tie rules, how many within rounding and within the tie range,
    the share of tied pairs, the target and a verdict. A group with nothing to compare stops with an error."""
    check_tie_rule(tie_rule)
    frame = with_defaults(frame)
    rows, summary = [], []
    for group in groups:
        view = RankingView(frame, group)
        ours = view.win_rates(tie_rule).mean(axis=1, skipna=True)
        alternative = RankingView(frame, group, skip_contaminated=False).win_rates("half").mean(axis=1, skipna=True)
        low, high = view.tie_ranges()
        both = pd.DataFrame({"published": published_win_rates(frame, group), "ours": ours, "ours_half": alternative,
                             "tie_range_low": low, "tie_range_high": high}).dropna(subset=["published", "ours"])
        if both.empty:
            raise DataError(f"win_rate_comparison: group {group!r} has no model with both a published "
                            f"'{WIN_RATE}' and a recomputed one")
        both["abs_diff"] = (both["ours"] - both["published"]).abs()
        both["abs_diff_half"] = (both["ours_half"] - both["published"]).abs()
        both["within_tie_range"] = ((both["published"] >= both["tie_range_low"] - ROUNDING - 1e-9)
                                    & (both["published"] <= both["tie_range_high"] + ROUNDING + 1e-9))
        for model, r in both.iterrows():
            rows.append({"group": group, "model": model, "published": r.published, "ours": r.ours,
                         "abs_diff": r.abs_diff, "ours_half": r.ours_half, "abs_diff_half": r.abs_diff_half,
                         "tie_range_low": r.tie_range_low, "tie_range_high": r.tie_range_high,
                         "within_tie_range": bool(r.within_tie_range)})
        tau = kendalltau(both["ours"], both["published"]).statistic if len(both) > 1 else np.nan
        summary.append({"group": group, "models": len(both), "kendall_tau": tau,
                        "median_abs_diff": both["abs_diff"].median(), "mean_abs_diff": both["abs_diff"].mean(),
                        "max_abs_diff": both["abs_diff"].max(),
                        "median_abs_diff_half": both["abs_diff_half"].median(),
                        "max_abs_diff_half": both["abs_diff_half"].max(),
                        "within_rounding": int((both["abs_diff"] <= ROUNDING + 1e-9).sum()),
                        "within_tie_range": int(both["within_tie_range"].sum()),
                        "median_tie_range_width": (both["tie_range_high"] - both["tie_range_low"]).median(),
                        "tied_pairs_share": tie_share(frame, group),
                        "skipped_contaminated": view.skipped["contaminated"], "skipped_hidden": view.skipped["hidden"],
                        "unranked_columns": len(view.unranked),
                        "target_max_abs_diff": REPRODUCTION_TARGETS.get(group, np.nan),
                        **dict(zip(("verdict", "note"), _group_verdict(group, both["abs_diff"], both["within_tie_range"])))})
    return pd.DataFrame(rows), pd.DataFrame(summary)


def reproduction_rows(comparison: pd.DataFrame) -> list[dict]:
    """One reproduction-check row per model × group of :func:`win_rate_comparison` (:func:`helmlite.claims.reproduction.published_verdict`):
    ``reproduced`` within the published rounding (±0.0005) or, where a group has one, within its acceptance bound
    (:data:`REPRODUCTION_TARGETS`; the note says which), ``consistent`` where a group without a bound has the
    published value inside the tie range (Bias, Toxicity), else ``differs``."""
    rows = []
    for r in comparison.itertuples():
        target = REPRODUCTION_TARGETS.get(r.group)
        # the tie range widened by the published rounding, as the group summary's within_tie_range
        low, high = (math.nan, math.nan) if target is not None else (r.tie_range_low - ROUNDING, r.tie_range_high + ROUNDING)
        word = published_verdict(r.ours, r.published, target if target is not None else ROUNDING, low, high)
        note = ("within the published rounding (±0.0005)" if r.abs_diff <= ROUNDING + 1e-9 else
                f"within the group's acceptance bound {target}" if word == "reproduced" else
                "the published value lies in the tie range" if word == "consistent" else "")
        rows.append(row(f"winrate:{r.group}:{r.model}", r.published, r.ours, word, note=note))
    return rows


def explain_gaps(summary: pd.DataFrame) -> str:
    """One markdown paragraph, for the notebook, on what the remaining differences of
    :func:`win_rate_comparison` are (numbers taken from ``summary``)."""
    s = summary.set_index("group")
    targeted = [g for g in s.index if g in REPRODUCTION_TARGETS]
    loose = [g for g in s.index if g not in REPRODUCTION_TARGETS]
    gaps = ", ".join(f"{g} {s.loc[g, 'median_abs_diff']:.4f} / {s.loc[g, 'max_abs_diff']:.4f}" for g in targeted)
    met = [g for g in targeted if s.loc[g, "verdict"] == "reproduced"]
    contaminated, hidden = int(s["skipped_contaminated"].sum()), int(s["skipped_hidden"].sum())
    text = (
        "**Reading the deviations.** The recomputation follows HELM v0.4.0's own rules (`summarize.py`, "
        f"`compute_aggregate_row_win_rates`): strongly contaminated cells (☠, T0pp; {contaminated} here) are skipped; "
        f"the ECE and MS MARCO values HELM hid for models with log-probability issues (Anthropic-LM v4-s3, LLaMA, "
        f"Llama 2; {hidden} here), which the flattened table still carries, are not ranked; Coverage, Density and "
        "Compression have no direction in HELM's schema and are not ranked; exact ties are broken by row order "
        "without half credit (half credit for ties came with HELM v0.5.4: `ours_half`, a sensitivity). "
        "What remains is rounding: the table shows cells to 3 decimals, HELM ranked unrounded means. We recover "
        "the means as sum/n from each cell's statistics and break remaining exact ties by an approximation of "
        "HELM's row order (creator, then name), which the flattened table has lost. Median / max |Δ|: "
        f"{gaps}" + (f" (within the target for {', '.join(met)})" if met else "") + ". ")
    half = ", ".join(f"{g} {s.loc[g, 'median_abs_diff_half']:.4f} / {s.loc[g, 'max_abs_diff_half']:.4f}" for g in targeted)
    lower_median = sum(s.loc[g, "median_abs_diff"] <= s.loc[g, "median_abs_diff_half"] for g in targeted)
    text += (f"With half credit instead: {half}; the v0.4.0 rule has the lower or equal median in {lower_median} "
             f"of {len(targeted)} groups, a maximum can go either way since our row order only approximates HELM's.")
    for group in loose:
        n, inside = int(s.loc[group, "models"]), int(s.loc[group, "within_tie_range"])
        share = s.loc[group, "tied_pairs_share"]
        text += (f" {group}: {share:.0%} of model pairs have equal displayed values in a column, so the table cannot "
                 f"determine the win rate — breaking those ties either way moves the median model's by "
                 f"{s.loc[group, 'median_tie_range_width']:.3f} (`tie_range_low`–`tie_range_high`); {inside} of {n} "
                 "published values lie inside that range: ")
        text += ("consistent within rounding, neither reproduced nor contradicted." if inside == n else
                 f"{n - inside} lie outside it, which rounding cannot explain.")
    return text
