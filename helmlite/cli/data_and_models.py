"""``helmlite fetch`` (registered data files: cache → ``$HELMLITE_DATA_MIRROR`` → download) and ``helmlite models``
(list or prepare the embedded models)."""
from __future__ import annotations

from .. import data, workflow
from ..errors import UserError


def register(sub) -> None:
    fetch = sub.add_parser("fetch", help="fetch registered data files (cache → $HELMLITE_DATA_MIRROR → download)")
    fetch.add_argument("names", nargs="*", help="registry names, e.g. helmet/agg_results_128k.csv")
    fetch.add_argument("--all", action="store_true", help="every registered file")
    fetch.add_argument("--source", action="append", help="every file of one source id (repeatable)")
    fetch.add_argument("--for-config", metavar="FILE", help="every file the analyses enabled in a config need")
    fetch.add_argument("--list", action="store_true", help="list the registry")
    fetch.set_defaults(func=run)
    models = sub.add_parser("models", help="list or prepare the embedded models")
    models.add_argument("action", choices=["list", "prepare"],
                        help="list: the embedded models and whether they are prepared; prepare: convert them to model folders")
    models.add_argument("names", nargs="*", help="embedded model names to prepare (e.g. smollm2-135m)")
    models.add_argument("--all", action="store_true", help="prepare every embedded model")
    models.set_defaults(func=run)


def run(args) -> None:
    (fetch if args.command == "fetch" else models)(args)


def fetch(args) -> None:
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
        raise UserError("fetch: name files to fetch, or use --all / --source ID / --for-config FILE / --list")
    for name in dict.fromkeys(names):
        print(f"{name} -> {data.fetch(name)}")


def models(args) -> None:
    from .. import models

    if args.action == "list":
        for row in models.status():
            state = "prepared" if row["prepared"] else ("not prepared" if row["installed"] else "not installed")
            print(f"{row['name']:14} {state:13} {row['package']:38} {row['license']:20} {row['description']}")
        print(f"(prepared models live in {models.model_dir()}; `helmlite models prepare NAME` prepares one)")
        return
    names = list(models.EMBEDDED) if args.all else args.names
    if not names:
        raise UserError("models prepare: name a model (" + ", ".join(models.EMBEDDED) + ") or use --all")
    for name in names:
        print(f"{name} -> {models.prepare(name)}")
