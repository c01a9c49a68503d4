"""The reports a reader opens: each executed notebook as one page of a small static site (``render``), the landing
page (``index``), the "What this run shows" block every report opens with (``summary``), the header and footer the
pages share (``site``), the checks run on executed notebooks before they become pages (``checks``), and what a notebook
writes and reads in one call each (``outputs``: tables, figures, claims and manifest under the catalog's names; the runs
it analyses), how a table reads on the page (``tables``), the n and interval a figure's caption names (``captions``), and a notebook's first cell in one call (``setup``)."""
from .captions import sample_detail
from .checks import check_reports, figures_shown, stray_outputs
from .index import index_page
from .navigation import run_scope
from .parameters import ParameterError, check_parameters
from .outputs import Outputs, default_parameters, load_runs, verdict_counts
from .render import notebook_to_html
from .setup import setup
from .site import Page, RunFacts, pages, run_facts
from .tables import show as show_table

__all__ = ["Outputs", "ParameterError", "check_parameters", "Page", "RunFacts", "check_reports", "default_parameters", "figures_shown", "index_page", "load_runs", "notebook_to_html", "pages", "run_facts", "run_scope", "sample_detail", "setup",
           "show_table", "stray_outputs", "verdict_counts"]
