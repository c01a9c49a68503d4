"""What a notebook writes and reads, in one call each: its tables, figures, claims table and manifest under the names
:mod:`helmlite.catalog` lists for its analysis (a name the catalog does not list is refused, so the workflow, the
index and the notebook cannot drift apart), and the runs it analyses with a note on the ones missing."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import claims, plots
from .._io import write_csv
from ..catalog import Analysis
from ..errors import UserError
from ..results.provenance import write_manifest
from . import summary, tables


#: The display metadata of the sentence shown in place of a figure this run has nothing to draw for
#: (:meth:`Outputs.figure`); :func:`helmlite.report.figures_shown` counts it as the figure's place.
ABSENT_METADATA = {"helmlite": "absent_figure"}


class Outputs:
    """One analysis's output folders: ``table("score_matrix", frame)`` writes ``<tables_dir>/<key>_score_matrix.csv``,
    ``figure("score_matrix", fig)`` the PNG and PDF, ``measured`` a wall-clock table under ``measured_dir`` — each
    name checked against the catalog's list for the analysis."""

    def __init__(self, analysis: Analysis, tables_dir: str, figures_dir: str, measured_dir: str | None = None):
        self.analysis, self.tables_dir, self.figures_dir, self.measured_dir = analysis, tables_dir, figures_dir, measured_dir
        self.captions: dict[str, str] = {}  # figure name → the caption it was shown with (the headline repeats it)

    def _listed(self, kind: str, short: str, names: dict) -> str:
        name = f"{self.analysis.key}_{short}"
        if name not in names:
            raise UserError(f"notebooks/{self.analysis.notebook}.ipynb: no {kind} {name!r} in helmlite.catalog's "
                            f"{self.analysis.key} entry; its {kind}s: {', '.join(sorted(names))}")
        return name

    def table_path(self, short: str) -> Path:
        """Where the table ``short`` is written (a report table links it)."""
        return Path(f"{self.tables_dir}/{self._listed('table', short, self.analysis.tables)}.csv")

    def table(self, short: str, frame: pd.DataFrame) -> Path:
        return write_csv(self.table_path(short), frame)

    @property
    def reports_dir(self) -> Path:
        """Where the workflow renders the report pages: the ``reports`` folder beside the tables folder
        (:func:`helmlite.workflow.output_dirs`), from which a table's CSV link is relative."""
        return Path(self.tables_dir).parent / "reports"

    def show(self, short: str, frame: pd.DataFrame, view: pd.DataFrame | None = None, **options) -> None:
        """Write ``frame`` as the table ``short`` (:meth:`table`) and show ``view`` (default: ``frame``) as a report
        table linking that CSV (:func:`helmlite.report.tables.show`; ``options`` go to it). Returns nothing, so a cell
        ending with it shows the table only."""
        tables.show(frame if view is None else view, csv=self.table(short, frame), page_dir=self.reports_dir, **options)

    def show_measured(self, short: str, frame: pd.DataFrame, **options) -> None:
        """Write ``frame`` as the measured table ``short`` (:meth:`measured`) and show it linking that CSV."""
        tables.show(frame, csv=self.measured(short, frame), page_dir=self.reports_dir, **options)

    def measured(self, short: str, frame: pd.DataFrame) -> Path:
        if self.measured_dir is None:
            raise UserError(f"notebooks/{self.analysis.notebook}.ipynb: a measured table needs measured_dir")
        return write_csv(f"{self.measured_dir}/{self._listed('measured table', short, self.analysis.measured)}.csv", frame)

    def figure(self, short: str, fig, detail: str = "", absent: str = "") -> list[Path]:
        """Write the figure (:func:`helmlite.plots.save`) and show it with its caption: the catalog's, then ``detail``
        (this run's n, what was left out). With ``absent`` (why this run has nothing to draw: a study the config does
        not run) the file is still written — the workflow lists it — but the report shows that sentence in its place,
        not an empty numbered figure (:data:`ABSENT_METADATA`)."""
        name = self._listed("figure", short, self.analysis.figures)
        self.captions[name] = " ".join(filter(None, (self.analysis.figures[name], detail)))
        if not absent:
            return plots.save(fig, name, self.figures_dir, caption=self.captions[name])
        from IPython.display import Markdown, display

        paths = plots.save(fig, name, self.figures_dir, show=False)
        display(Markdown(f"*No figure: {absent}*"), metadata={**ABSENT_METADATA, "name": name})
        return paths

    def summary(self, claims: pd.DataFrame | None = None, reproduction: pd.DataFrame | None = None,
                headline: str | None = None, note: str | None = None) -> None:
        """Show "What this run shows" (:func:`helmlite.report.summary.show`): the figure ``headline`` (written before,
        with the caption it was shown with) and a link to each of the claims and reproduction tables' CSVs."""
        png = caption = None
        if headline is not None:
            name = self._listed("figure", headline, self.analysis.figures)
            png, caption = f"{self.figures_dir}/{name}.png", self.captions.get(name, self.analysis.figures[name])
        links = [tables.csv_anchor(self.table_path(short), self.reports_dir)
                 for short, frame in (("claims", claims), ("reproduction", reproduction))
                 if frame is not None and self.table_path(short).is_file()]
        summary.show(claims, reproduction, headline=png, note=note, caption=caption,
                     data=("Data: " + " · ".join(links)) if links else None)

    def claims(self, claim_list: list, primary: list[str] | None = None) -> pd.DataFrame:
        """The analysis's claims decided (:func:`helmlite.claims.claims_table`; ``primary``: the claims the config
        declares primary, the notebook's ``primary_claims`` parameter), checked and written as ``<key>_claims``."""
        table = claims.claims_table(claim_list, primary=primary)
        claims.check_claims_table(table)
        self.table("claims", table)
        return table

    def manifest(self, **kwargs) -> Path:
        """The provenance manifest of the notebook's outputs (:func:`helmlite.results.provenance.write_manifest`)."""
        return write_manifest(f"{self.tables_dir}/{self.analysis.manifest}.json",
                              step=f"notebooks/{self.analysis.notebook}.ipynb", **kwargs)



def default_parameters(analysis: Analysis, config: str = "config/config.yaml") -> dict:
    """The notebook parameters the workflow would pass for ``analysis`` under ``config`` (what a notebook run on its
    own, without papermill's parameters, analyses: the default config's runs)."""
    from .. import workflow

    return workflow.notebook_parameters(workflow.load_config(config), analysis)


def load_runs(results_dir: str, run_ids: list[str] | None, analysis: Analysis | None = None) -> list:
    """The runs of ``run_ids`` (None: the default config's runs of ``analysis``, :func:`default_parameters`) present
    under ``results_dir``, read; shows how many are missing (none is an error: a report shows what exists, and says
    so)."""
    from IPython.display import Markdown, display

    from .. import results

    if run_ids is None:
        if analysis is None:
            raise UserError("load_runs: give the run ids, or the analysis whose default runs to read")
        run_ids = default_parameters(analysis)["run_ids"]
    present = results.present_runs(results_dir, run_ids)
    if len(present) < len(run_ids):
        display(Markdown(f"**{len(run_ids) - len(present)} of {len(run_ids)} runs are missing** under `{results_dir}`: "
                         "run `snakemake --cores all` first; this report shows the runs that exist."))
    return results.read_runs(results_dir, present)


def verdict_counts(table: pd.DataFrame) -> str:
    """A claims or reproduction table's verdicts counted, in Markdown (``**supported**: 2 · **inconclusive**: 5``), most
    frequent first."""
    return " · ".join(f"**{verdict}**: {count}" for verdict, count in table["verdict"].value_counts().items())
