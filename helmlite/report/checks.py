"""Checks on the executed notebooks of a workflow run, before anyone reads them (``make e2e`` runs
:func:`check_reports` on ``config/test.yaml``): each shows every catalogued figure, each with a caption; none carries a
warning, an error or a download message (a stderr or error output), which would reach its report; and every claim its
claims table names is a claim ``helmlite plan --claims`` accepts verbatim (:func:`unplanned_claims`)."""
from __future__ import annotations

import os

from ..plots import FIGURE_METADATA
from .outputs import ABSENT_METADATA
from .summary import HEADLINE_METADATA


def _outputs(notebook: str | os.PathLike):
    import nbformat

    for index, cell in enumerate(nbformat.read(str(notebook), as_version=4).cells):
        for output in cell.get("outputs", []):
            yield index, output


def figures_shown(notebook: str | os.PathLike) -> int:
    """How many figures an executed notebook's outputs account for (what its HTML report will show): its PNG figures,
    not counting the summary's second copy of the headline figure, and the sentences shown in place of a figure this
    run had nothing to draw for (:data:`helmlite.report.outputs.ABSENT_METADATA`)."""
    def counted(output) -> bool:
        marker = output.get("metadata", {}).get("helmlite")
        return (("image/png" in output.get("data", {}) and marker != HEADLINE_METADATA["helmlite"])
                or marker == ABSENT_METADATA["helmlite"])

    return sum(counted(output) for _, output in _outputs(notebook))


def uncaptioned_figures(notebook: str | os.PathLike) -> list[str]:
    """The PNG outputs of an executed notebook shown without a caption (:data:`helmlite.plots.FIGURE_METADATA`), as
    "cell N": the report could not number them nor give them alt text."""
    return [f"cell {index}" for index, output in _outputs(notebook)
            if "image/png" in output.get("data", {}) and not output.get("metadata", {}).get(FIGURE_METADATA, {}).get("caption")]


def stray_outputs(notebook: str | os.PathLike) -> list[str]:
    """Every stderr stream and error output of an executed notebook, as "cell N: first line"."""
    found = []
    for index, output in _outputs(notebook):
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            first = (output.get("text", "").strip().splitlines() or ["(blank)"])[0]
            found.append(f"cell {index}: stderr: {first[:200]}")
        elif output.get("output_type") == "error":
            found.append(f"cell {index}: {output.get('ename')}: {str(output.get('evalue'))[:200]}")
    return found


def unplanned_claims(config: dict) -> list[str]:
    """The claims of the config's claims tables (``tables/*_claims.csv``) that its plan does not declare under the same
    name — the name a report prints must be what ``helmlite plan --claims`` accepts (the planner counts tokens here but
    measures no rates)."""
    import pandas as pd

    from .. import workflow
    from ..planning import plan

    declared = set(plan(config, measure_rates=False).claims["claim"])
    missing = []
    for analysis in workflow.enabled(config):
        path = workflow.outputs(config, analysis)["tables"]
        for table in (p for p in path if str(p).endswith("_claims.csv")):
            missing += [f"{table}: {name}" for name in pd.read_csv(table)["claim"] if name not in declared]
    return missing


def decided_live_claims(config: dict) -> list[str]:
    """The live claims (those the plan sizes from the config's runs, not a published table's) that the config's claims
    tables decide — supported or contradicted — each as "verdict: name"."""
    import pandas as pd

    from .. import workflow
    from ..planning import plan

    planned = plan(config, measure_rates=False).claims
    live = set(planned.loc[planned["n"].notna(), "claim"])
    decided = []
    for analysis in workflow.enabled(config):
        for table in (p for p in workflow.outputs(config, analysis)["tables"] if str(p).endswith("_claims.csv")):
            rows = pd.read_csv(table)
            decided += [f"{r.verdict}: {r.claim}" for r in rows.itertuples()
                        if r.claim in live and r.verdict in ("supported", "contradicted")]
    return decided


def check_reports(config_path: str | os.PathLike) -> None:
    """Fail unless every executed notebook of the config's workflow shows each of its catalogued figures (its image
    outputs equal the catalog's figure count), each with a caption, and has no stderr or error output, and every claim of its claims tables
    is a claim of its plan, verbatim (run after the workflow)."""
    from .. import workflow
    from ..errors import DataError

    config = workflow.load_config(config_path)
    problems = []
    for analysis in workflow.enabled(config):
        notebook = workflow.outputs(config, analysis)["notebook"]
        shown, stray = figures_shown(notebook), stray_outputs(notebook)
        print(f"{notebook}: {shown} figures shown, {len(analysis.figures)} catalogued; {len(stray)} stderr/error outputs")
        if shown != len(analysis.figures):
            problems.append(f"{notebook} shows {shown} figures, the catalog lists {len(analysis.figures)}")
        problems += [f"{notebook}: {line}" for line in stray]
        problems += [f"{notebook}: {cell} shows a figure without a caption" for cell in uncaptioned_figures(notebook)]
    unplanned = unplanned_claims(config)
    print(f"claims tables: {len(unplanned)} claim(s) the plan does not name verbatim")
    problems += [f"not a claim of the plan (helmlite plan --claims would refuse it): {line}" for line in unplanned]
    if problems:
        raise DataError("; ".join(problems))
