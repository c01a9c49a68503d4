"""``efficiency``: prompt and generated tokens per instance, the deterministic inputs of §4.9's runtime; every run."""
from ..registry import EVERY_RUN, metric_family

metric_family(name="efficiency", order=8, default_for=(EVERY_RUN,), summary="helmlite.metrics.families:efficiency_summary")
