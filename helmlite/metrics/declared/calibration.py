"""``calibration``: ECE (10 and 1 bins), SCAA, selective accuracy at 10% and the Platt-scaled ECEs (§4.4); multiple
choice and generation runs get it (HELM: ECE from exp(the completion's log-probability))."""
from ..registry import metric_family

metric_family(name="calibration", order=4,
              default_for=("multiple_choice_joint", "multiple_choice_separate", "multiple_choice_separate_calibrated",
                           "generation"),
              libraries=("sklearn.linear_model",), bootstrapped="helmlite.metrics.families:calibration_bootstrapped",
              points="helmlite.metrics.families:platt_points", shares="helmlite.metrics.families:calibration_shares")
