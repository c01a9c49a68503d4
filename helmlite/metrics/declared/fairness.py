"""``fairness``: HELM's worst case over {original} ∪ its fairness perturbations, per instance (§4.6)."""
from ..registry import metric_family

metric_family(name="fairness", order=2, worst_case_of="fairness")
