"""A notebook's first cell in one call (issue #65): its parameters checked, the figure style, its outputs and its
bootstrap settings — the lines every notebook repeated."""
from __future__ import annotations

from .. import plots
from ..catalog import Analysis
from .parameters import check_parameters
from .outputs import Outputs

#: The parameters every notebook takes (the workflow passes them; :mod:`helmlite.workflow`), with their types.
COMMON_PARAMETERS = {"n_resamples": int, "seed": int, "figures_dir": str, "tables_dir": str}


def setup(namespace: dict, analysis: Analysis, parameters: dict | None = None, note: str = "") -> tuple[Outputs, dict]:
    """Check the notebook's parameters in ``namespace`` (its ``globals()``: :data:`COMMON_PARAMETERS` and the
    analysis's own ``parameters``, name → type or tuple of types; one clear error per mistake), set the figure style,
    print the bootstrap settings (with ``note``) as the cell's output, and return the notebook's :class:`Outputs`
    (with its ``measured_dir`` where it has one, for wall-clock tables) and the settings every resampling call takes
    (``**boot``)."""
    check_parameters(namespace, {**COMMON_PARAMETERS, **(parameters or {})})
    plots.use_style()
    out = Outputs(analysis, namespace["tables_dir"], namespace["figures_dir"], namespace.get("measured_dir"))
    print(f"bootstrap: {namespace['n_resamples']} resamples{f' ({note})' if note else ''}, base seed {namespace['seed']}")
    return out, {"n_resamples": int(namespace["n_resamples"])}
