"""``bias``: demographic representation and stereotypical associations of the generations (§4.7), from HELM's word
lists (:data:`WORD_LISTS`, read by :mod:`helmlite.metrics.bias`)."""
from ..registry import metric_family

#: HELM's bias word lists, a registry name of :mod:`helmlite.data`.
WORD_LISTS = "helm/resources/bias_word_lists.json"

metric_family(name="bias", order=5, default_for=("generation",), data_files=(WORD_LISTS,),
              bootstrapped="helmlite.metrics.families:bias_bootstrapped")
