"""``helmlite plan``: what a config will cost and what it can decide, before any model runs (issue 24 §2).

The planner itself is :mod:`.planner` (:func:`plan`, its table and its rendering); beside it the parts it is made of —
the backend's work counted without computing (its token-counting hook, :func:`helmlite.models.work_counter`; large runs' samples, :mod:`.sampling`), this machine's
measured rates (:mod:`.rates`), memory (:mod:`.memory`), the pilot and the claims' MDEs (:mod:`.pilot`,
:mod:`.claim_mdes`) — and two users of a plan: the design search (:mod:`.design`) and the price of one run
(:mod:`.run_price`). This face only re-exports.
"""
from . import design, run_price
from .planner import (CONCURRENT_SLOWDOWN, PER_RUN_OVERHEAD_S, Plan, check_against_measured, job_plan, plan,
                      predicted_wall_s, priced_here, render)

__all__ = ["CONCURRENT_SLOWDOWN", "PER_RUN_OVERHEAD_S", "Plan", "check_against_measured", "design", "job_plan", "plan",
           "predicted_wall_s", "priced_here", "render", "run_price"]
