"""Where helmlite keeps what every working directory shares: fetched data, prepared models, the request cache.

One rule, so that ``helmlite run`` finds the models ``make reproduce`` prepared and answers from the same request
cache whichever folder it is called from:

* ``$HELMLITE_HOME`` when set;
* else the checkout helmlite runs from (an editable install: the folder holding the ``Snakefile``), so the
  repository's ``data/`` and ``results/cache/`` are the defaults, as the workflow uses them;
* else (helmlite installed as a package) ``$XDG_CACHE_HOME/helmlite``, by default ``~/.cache/helmlite``.

Inside it: ``data/external/`` (fetched files; ``$HELMLITE_DATA_CACHE`` overrides), ``data/models/`` (prepared
models; ``$HELMLITE_MODEL_DIR``) and ``results/cache/requests.sqlite`` (``$HELMLITE_REQUEST_CACHE``). What a command
produces — run folders (``--results-dir``, default ``results/runs``), notebooks, tables, figures — goes where the
command is told, relative to the working directory.
"""
from __future__ import annotations

import os
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def home() -> Path:
    """The folder of the rule above."""
    if os.environ.get("HELMLITE_HOME"):
        return Path(os.environ["HELMLITE_HOME"]).expanduser().absolute()
    if (_CHECKOUT / "Snakefile").is_file() and (_CHECKOUT / "helmlite" / "schema.yaml").is_file():
        return _CHECKOUT
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache").expanduser().absolute() / "helmlite"


def shared_path(variable: str, default: str) -> Path:
    """``$variable`` (relative to the working directory) when set, else ``default`` inside :func:`home`."""
    value = os.environ.get(variable)
    return Path(value).expanduser().absolute() if value else home() / default
