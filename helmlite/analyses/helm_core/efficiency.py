"""Efficiency (Liang et al. 2022, §4.9, App. C.8): observed runtime and HELM's runtime model.

HELM models the runtime of one request as ``F(prompt tokens) + g · output tokens``: a per-model cost
of encoding the prompt plus a per-generated-token cost. With F linear this is an ordinary least
squares fit, ``latency ~ 1 + prompt_tokens + output_tokens`` (statsmodels), whose coefficients come
with confidence intervals.
"""
from __future__ import annotations

import pandas as pd

from ...errors import UserError


def fit_runtime_model(frame: pd.DataFrame) -> pd.DataFrame:
    """OLS of ``latency_s`` on ``prompt_tokens`` and ``output_tokens``: coefficient, CI, R²."""
    import statsmodels.formula.api as smf

    if len(frame) < 4:
        raise UserError(f"runtime model: need at least 4 requests, got {len(frame)}")
    fit = smf.ols("latency_s ~ prompt_tokens + output_tokens", data=frame).fit()
    ci = fit.conf_int()
    return pd.DataFrame({"term": fit.params.index, "estimate": fit.params.values, "ci_low": ci[0].values,
                         "ci_high": ci[1].values, "r_squared": fit.rsquared, "n": int(fit.nobs)})


def runtime_note(table: pd.DataFrame) -> str:
    """What a reader should know before reading a per-token cost off :func:`fit_runtime_model`'s table (Markdown): a
    coefficient whose interval lies below 0 is not a cost. Here a request's latency is not its prompt's length: the
    backend encodes each run's shared few-shot prefix once and scores many requests in one forward pass, so the
    runs with the longest prompts (most shared context) cost least per request, and the fit's slope turns negative."""
    negative = table[(table["term"] != "Intercept") & (table["ci_high"] < 0)]
    if negative.empty:
        return ("Every coefficient's interval includes or exceeds 0: read each as seconds per token (with its interval); "
                "HELM fits this model per model on its own hardware.")
    terms = ", ".join(f"{r.model}'s {r.term} ({r.estimate:.3g} s/token, [{r.ci_low:.3g}, {r.ci_high:.3g}])"
                      for r in negative.itertuples())
    return (f"**Not a cost:** {terms} — an interval below 0. helmlite encodes each run's shared few-shot prefix once and "
            "scores many requests in one forward pass, so a request's latency does not grow with its prompt's length: "
            "the runs with the longest prompts (the most shared context) cost least per request. Read the output-token "
            "slope as the per-token cost; HELM's runtime model assumes every prompt token is encoded for every request.")
