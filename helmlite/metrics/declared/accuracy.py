"""``accuracy``: every per-instance metric's mean (Liang et al. 2022, §4.2); every run gets it."""
from ..registry import EVERY_RUN, metric_family

metric_family(name="accuracy", order=0, default_for=(EVERY_RUN,))
