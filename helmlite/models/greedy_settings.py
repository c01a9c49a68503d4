"""Whether a transformers model's greedy decoding is the argmax of its own next-token distribution: true unless a
setting of its ``generation_config`` adds a logits processor that changes that token (transformers 5.x's
``_get_logits_processor``). :class:`~helmlite.models.transformers_backend.TransformersModel` answers one-token greedy
requests from packed forwards only then; otherwise HF ``generate`` answers them, processors and all."""
from __future__ import annotations

#: generation_config settings at the values that add no logits processor to greedy decoding; any other value (a
#: repetition penalty, banned or suppressed tokens, a forced or minimum-length end of text, classifier-free guidance)
#: sends one-token greedy requests to HF ``generate``.
NEUTRAL_GENERATION_SETTINGS = {
    "repetition_penalty": (None, 1.0), "encoder_repetition_penalty": (None, 1.0), "no_repeat_ngram_size": (None, 0),
    "encoder_no_repeat_ngram_size": (None, 0), "bad_words_ids": (None,), "sequence_bias": (None,), "min_length": (None, 0),
    "min_new_tokens": (None, 0), "forced_bos_token_id": (None,), "forced_eos_token_id": (None,), "suppress_tokens": (None,),
    "begin_suppress_tokens": (None,), "guidance_scale": (None, 1.0), "exponential_decay_length_penalty": (None,),
    "renormalize_logits": (None, False), "remove_invalid_values": (None, False),
}


def greedy_is_argmax(generation_config) -> bool:
    """Whether HF ``generate``'s greedy first token under ``generation_config`` is the argmax of the model's own
    distribution: every setting of :data:`NEUTRAL_GENERATION_SETTINGS` at a neutral value."""
    return all(getattr(generation_config, name, None) in neutral for name, neutral in NEUTRAL_GENERATION_SETTINGS.items())
