"""What several commands share: the parser that turns a usage mistake into one line, range-checked numbers, the
bootstrap options, renamed options that keep their old spelling for one release, folder and spec-file checks."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..errors import UserError

#: The fewest bootstrap resamples any command accepts (as the config schema's bootstrap.n_resamples).
MIN_RESAMPLES = 100


class Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`UserError` on a usage mistake, so it is reported like any other error."""

    def error(self, message: str):
        """Raise ``UserError("<subcommand>: <message> (see `helmlite <subcommand> --help`)")``."""
        where = self.prog.removeprefix("helmlite").strip()
        raise UserError(f"{where + ': ' if where else ''}{message} (see `{self.prog} --help`)")


def int_at_least(minimum: int):
    """An argparse type: a whole number >= ``minimum``, else the option's one-line error naming the bound."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


class _Renamed(argparse.Action):
    """An option's old spelling: sets the new option's value and says once on stderr which spelling to use."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"helmlite: warning: {option_string} is renamed {self.new}; the old spelling goes in the next release",
              file=sys.stderr)
        setattr(namespace, self.dest, values)


def renamed_option(command, new: str, old: str, **kwargs) -> None:
    """``new`` as documented, and ``old`` hidden from ``--help``, kept working for one release with a deprecation line
    (the same type and choices, so its mistakes get the same one-line errors)."""
    command.add_argument(new, **kwargs)
    dest = new.lstrip("-").replace("-", "_")
    command.add_argument(old, dest=dest, action=_Renamed, new=new,
                         **{key: kwargs[key] for key in ("type", "choices") if key in kwargs})


def bootstrap_options(command, resamples: int = 2000, resamples_help: str = "bootstrap resamples of every interval in "
                      "stats.json", seed_help: str = "base seed of every bootstrap in stats.json", old_seed: str | None = None):
    """``--n-resamples`` (at least :data:`MIN_RESAMPLES`) and ``--bootstrap-seed`` — the seed of the bootstraps, never of
    which items or examples are selected (``--selection-seed``); ``old_seed``: the seed's old spelling, if any."""
    command.add_argument("--n-resamples", type=int_at_least(MIN_RESAMPLES), default=resamples, help=resamples_help)
    if old_seed:
        renamed_option(command, "--bootstrap-seed", old_seed, type=int, default=0, help=seed_help)
    else:
        command.add_argument("--bootstrap-seed", type=int, default=0, help=seed_help)


def site_options(command, required: bool) -> None:
    """The workflow config whose site a page belongs to (navigation, the run's facts)."""
    given = command.add_mutually_exclusive_group(required=required)
    given.add_argument("--config", help="a workflow config file")
    given.add_argument("--config-json", help="the workflow config as JSON (what Snakemake passes)")
    command.add_argument("--configfile", help="the config file's name shown in the header and used to find its plan "
                         "(default: --config's file)")


def writable_folder(path: str, option: str) -> None:
    """One :class:`UserError` naming the option and the path unless ``path`` is a writable folder or can be made one
    (its nearest existing ancestor is a writable folder); nothing is created here."""
    existing = Path(path)
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        reason = "a file is in the way" if existing == Path(path) else f"{existing} is a file, not a folder"
        raise UserError(f"{option} {path}: cannot be used as a folder ({reason})")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UserError(f"{option} {path}: {existing} is not writable")


def key_value(text: str) -> tuple[str, object]:
    """``--arg key=value``: the value parsed as JSON when it is JSON (numbers, booleans), else the string."""
    key, sep, value = text.partition("=")
    if not sep:
        raise UserError(f"run: --arg expects key=value, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def read_spec_file(path: str) -> object:
    """The parsed YAML of a ``--spec`` file; a missing, unreadable or malformed file is a :class:`UserError`."""
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"--spec {path}: cannot read the run spec file ({error.strerror})") from None
    except UnicodeDecodeError:
        raise UserError(f"--spec {path}: not a UTF-8 text file") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise UserError(f"--spec {path}: not valid YAML ({getattr(error, 'problem', None) or error}{where})") from None
