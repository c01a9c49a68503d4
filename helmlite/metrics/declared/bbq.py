"""``bbq``: BBQ's accuracy and bias scores per context type (HELM's and Parrish et al. 2022's); BBQ's scenario adds
it to its runs."""
from ..registry import metric_family

metric_family(name="bbq", order=7, bootstrapped="helmlite.metrics.families:bbq_bootstrapped", shares="helmlite.metrics.families:bbq_shares")
