"""``helmlite`` command line: ``fetch``, ``config``, ``html``, ``index``.

Every expected failure (bad config, unknown name, missing data, malformed file) ends with one line
``helmlite: error: …`` and exit status 2 — never a traceback.
"""
from __future__ import annotations

import argparse
import sys

from . import data, workflow
from ._jsonl import DataFormatError
from .catalog import ANALYSES


def _fetch(args) -> None:
    if args.list:
        for name, item in sorted(data.registry().items()):
            origin = "mirror-only" if item.mirror_only else item.url
            print(f"{name}\t{item.license}\t{origin}")
        return
    names = list(args.names)
    if args.all:
        names += sorted(data.registry())
    for source in args.source or ():
        names += [item.name for item in data.source_files(source)]
    if args.for_config:
        names += workflow.required_data(workflow.load_config(args.for_config))
    if not names:
        raise SystemExit("helmlite fetch: name files to fetch, or use --all / --source ID / --for-config FILE / --list")
    for name in dict.fromkeys(names):
        print(f"{name} -> {data.fetch(name)}")


def _config(args) -> None:
    config = workflow.load_config(args.file)
    print(f"{args.file}: valid; analyses: {', '.join(config['analyses'])}")


def _html(args) -> None:
    from .report import notebook_to_html

    notebook_to_html(args.notebook, args.out)


def _index(args) -> None:
    from .report import index_page

    config = workflow.load_config(args.config) if args.config else workflow.parse_config(args.config_json, "--config-json")
    entries = []
    for analysis in workflow.enabled(config):
        files = workflow.outputs(config, analysis)
        files["html"] = files["notebook"][: -len(".ipynb")] + ".html"
        entries.append((analysis, files))
    index_page(entries, args.out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="helmlite", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fetch = sub.add_parser("fetch", help="fetch registered data files (cache → $HELMLITE_DATA_MIRROR → download)")
    fetch.add_argument("names", nargs="*", help="registry names, e.g. helmet/agg_results_128k.csv")
    fetch.add_argument("--all", action="store_true", help="every registered file")
    fetch.add_argument("--source", action="append", help="every file of one source id (repeatable)")
    fetch.add_argument("--for-config", metavar="FILE", help="every file the analyses enabled in a config need")
    fetch.add_argument("--list", action="store_true", help="list the registry")
    fetch.set_defaults(func=_fetch)
    config = sub.add_parser("config", help="validate a workflow config against config/schema.yaml")
    config.add_argument("file")
    config.set_defaults(func=_config)
    html = sub.add_parser("html", help="render an executed notebook as self-contained HTML")
    html.add_argument("notebook")
    html.add_argument("out")
    html.set_defaults(func=_html)
    index = sub.add_parser("index", help=f"write the landing page linking every report ({', '.join(ANALYSES)})")
    given = index.add_mutually_exclusive_group(required=True)
    given.add_argument("--config", help="a workflow config file")
    given.add_argument("--config-json", help="the workflow config as JSON (what Snakemake passes)")
    index.add_argument("--out", required=True)
    index.set_defaults(func=_index)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except (data.FetchError, data.UnknownDataError, workflow.ConfigError, DataFormatError) as error:
        print(f"helmlite: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
