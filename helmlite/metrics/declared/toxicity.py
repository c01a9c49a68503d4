"""``toxicity``: the share of generations the toxicity classifier flags (§4.8)."""
from ..registry import metric_family

metric_family(name="toxicity", order=6, default_for=("generation",), libraries=("profanity_check",),
              annotates="helmlite.metrics.families:toxicity_annotation")
