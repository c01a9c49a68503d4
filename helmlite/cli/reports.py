"""``helmlite notebook`` (execute an analysis notebook with papermill, as the workflow does), ``helmlite html`` (one
report page) and ``helmlite index`` (the landing page) — the reports site (:mod:`helmlite.report`)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from .. import workflow
from ..errors import did_you_mean
from ..catalog import ANALYSES
from ..errors import HelmliteError, UserError
from .options import site_options


class NotebookError(HelmliteError):
    """An analysis notebook stopped with an error; the message is the notebook's own last error line."""


def register(sub) -> None:
    notebook = sub.add_parser("notebook", help="execute an analysis notebook with papermill (what the workflow runs)")
    notebook.add_argument("notebook", help="the notebook to run, e.g. notebooks/01_helm_core.ipynb")
    notebook.add_argument("out", help="the executed notebook, written only when every cell succeeded")
    notebook.add_argument("--parameters-json", help="the notebook parameters as a JSON object")
    notebook.add_argument("--kernel", default="helmlite", help="Jupyter kernel (default: helmlite)")
    notebook.set_defaults(func=run)
    html = sub.add_parser("html", help="render an executed notebook as one self-contained page of the reports site")
    html.add_argument("notebook", help="an executed notebook (what `helmlite notebook` wrote)")
    html.add_argument("out", help="the HTML page to write")
    site_options(html, required=False)
    html.set_defaults(func=run)
    index = sub.add_parser("index", help=f"write the landing page linking every report ({', '.join(ANALYSES)})")
    site_options(index, required=True)
    index.add_argument("--out", required=True, help="the index page to write, e.g. reports/index.html")
    index.set_defaults(func=run)


def run(args) -> None:
    {"notebook": execute_notebook, "html": html, "index": index}[args.command](args)


def _parameters(args) -> dict:
    try:
        parameters = json.loads(args.parameters_json) if args.parameters_json else {}
    except json.JSONDecodeError as error:
        raise UserError(f"notebook: --parameters-json is not valid JSON ({error})") from None
    if not isinstance(parameters, dict):
        raise UserError(f"notebook: --parameters-json must be a JSON object of notebook parameters, got {parameters!r}")
    return parameters


def execute_notebook(args) -> None:
    """Execute a notebook with papermill into ``out`` (a temp file renamed on success): the cell outputs go
    to stderr as papermill logs them, and a failing cell ends in one line — the exception the notebook
    raised (e.g. a results reader's message naming the file and the fix) — not its traceback."""
    import logging

    import papermill

    from .._io import atomic_path

    if not Path(args.notebook).is_file():
        raise UserError(f"notebook: {args.notebook} not found")
    parameters = _parameters(args)
    _check_notebook_parameters(args.notebook, parameters)
    _check_kernel(args.kernel)
    logging.basicConfig(level=logging.INFO, format="%(message)s")  # papermill's log of each cell: the job's log
    try:
        with atomic_path(Path(args.out)) as tmp:
            executed = tmp.with_name(tmp.name + ".ipynb")  # papermill wants a notebook's extension
            try:
                # the kernel's own stderr (helmlite's log lines) goes to this process's stderr, the job's log, instead of
                # into the cells' outputs: IPython kernels capture file-descriptor output unless told not to
                papermill.execute_notebook(args.notebook, str(executed), parameters=parameters, kernel_name=args.kernel,
                                           cwd=".", log_output=True, progress_bar=False,
                                           extra_arguments=["--IPKernelApp.capture_fd_output=False"])
                executed.replace(tmp)
            finally:
                executed.unlink(missing_ok=True)
    except papermill.PapermillExecutionError as error:
        raise NotebookError(f"{args.notebook}: {error.ename}: {error.evalue}") from None


def _check_notebook_parameters(notebook: str, parameters: dict) -> None:
    """Every given name is one of the notebook's parameters (its cell tagged ``parameters``, read by papermill's own
    ``inspect_notebook``): a misspelt one would be ignored and the notebook run on its defaults."""
    import papermill

    known = list(papermill.inspect_notebook(notebook))
    for name in parameters:
        if name not in known:
            raise UserError(f"notebook {notebook}: unknown parameter {name!r}; its parameters: {', '.join(known)}."
                            f"{did_you_mean(name, known)}")


def _check_kernel(name: str) -> None:
    from jupyter_client.kernelspec import KernelSpecManager

    kernels = sorted(KernelSpecManager().find_kernel_specs())
    if name not in kernels:
        raise UserError(f"notebook: no Jupyter kernel named {name!r}; installed: {', '.join(kernels) or 'none'} "
                        f"(`make venv` registers the helmlite kernel).{did_you_mean(name, kernels)}")


def _site_config(args) -> tuple[dict | None, str | None]:
    """The workflow config a page belongs to (``--config FILE`` or ``--config-json``) and the config file's name
    its header shows (``--configfile``, else FILE); (None, None) without one."""
    if args.config:
        return workflow.load_config(args.config), args.configfile or args.config
    if args.config_json:
        return workflow.parse_config(args.config_json, "--config-json"), args.configfile or "the config given as JSON"
    return None, None


def html(args) -> None:
    from ..report import notebook_to_html, pages, run_facts

    if not Path(args.notebook).is_file():
        raise UserError(f"html: notebook {args.notebook} not found")
    config, configfile = _site_config(args)
    if config is None:
        notebook_to_html(args.notebook, args.out)
        return
    analysis = next((a for a in workflow.enabled(config) if a.notebook == Path(args.notebook).stem), None)
    here = Path(args.out).parent
    links = {"executed notebook": os.path.relpath(args.notebook, here)}
    if analysis is not None:
        links["provenance manifest"] = os.path.relpath(workflow.outputs(config, analysis)["manifest"], here)
    notebook_to_html(args.notebook, args.out, pages(config), run_facts(config, configfile, analysis), links)


def index(args) -> None:
    from ..report import index_page, pages, run_facts

    config, configfile = _site_config(args)
    entries = []
    for analysis in workflow.enabled(config):
        files = workflow.outputs(config, analysis)
        files["html"] = files["notebook"][: -len(".ipynb")] + ".html"
        entries.append((analysis, files))
    index_page(entries, args.out, pages(config), run_facts(config, configfile))
