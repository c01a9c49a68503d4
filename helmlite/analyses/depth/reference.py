"""Notebook 04's published reference values, in one place (Liu et al. 2023, Lost in the Middle)."""
from __future__ import annotations

# Lost in the Middle, GPT-3.5-Turbo (0613): Table 1 (closed-book, oracle) and Table 6 (20 documents, gold at
# positions 1, 5, 10, 15, 20) — cited constants the notebook checks the mirror's transcription against.
LITM_GPT35 = {"closed_book": 56.1, "oracle": 88.3, 0: 75.8, 4: 57.2, 9: 53.8, 14: 55.4, 19: 63.2}
