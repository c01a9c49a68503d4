"""``robustness``: HELM's worst case over {original} ∪ its robustness perturbations, per instance (§4.5)."""
from ..registry import metric_family

metric_family(name="robustness", order=1, worst_case_of="robustness")
