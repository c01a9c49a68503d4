"""The command line every import-fixture recipe shares (``*_import_fixture.py``): the tool's executable, the MMLU
subject and item count, the models, the output folder."""
from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def fixture_parser(description: str, tool: str, executable: str, out: str) -> argparse.ArgumentParser:
    """``--<tool>`` (the executable, default ``executable``), ``--subject``, ``--limit``, ``--models`` and ``--out``
    (default ``tests/data/<out>``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(f"--{tool}", default=executable, help=f"the {tool} executable")
    parser.add_argument("--subject", default="us_foreign_policy")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--models", nargs="+", default=["smollm2-135m", "gemma3-270m"])
    parser.add_argument("--out", default=str(REPO / "tests" / "data" / out))
    return parser
