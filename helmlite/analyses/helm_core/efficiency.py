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
