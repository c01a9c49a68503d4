"""``equivariance``: the worst case over {original} ∪ a scenario's contrast set (HELM's contrast-set robustness)."""
from ..registry import metric_family

metric_family(name="equivariance", order=3, worst_case_of="contrast")
