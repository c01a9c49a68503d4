"""``helmlite leaderboard winrates``: mean win rate per model with a bootstrap interval over scenarios, for any
leaderboard table (:mod:`helmlite.leaderboards`)."""
from __future__ import annotations

import sys

from .options import bootstrap_options


def register(sub) -> None:
    leaderboard = sub.add_parser("leaderboard", help="statistics of a leaderboard table (HELM JSON/CSV export or long format)")
    board = leaderboard.add_subparsers(dest="action", required=True)
    winrates = board.add_parser("winrates", help="mean win rate per model with a bootstrap CI over scenarios (CSV on stdout)")
    winrates.add_argument("--table", required=True, help="HELM groups JSON, a wide CSV or a long table (model × scenario × metric)")
    winrates.add_argument("--group", default="Accuracy", help="metric group (tab), e.g. Accuracy, Calibration, Robustness")
    winrates.add_argument("--scenarios", help="comma-separated scenario names as the table spells them (default: all)")
    winrates.add_argument("--tie-rule", default="v0.4.0", choices=["v0.4.0", "half"],
                          help="v0.4.0: ties broken by row order (HELM v0.4.0); half: ties count half (HELM v0.5.4 and later)")
    winrates.add_argument("--columns", help="a long table's columns by role when its names are not the usual ones: "
                                            "model=COL,scenario=COL,metric=COL,score=COL[,lower_is_better=COL,group=COL]")
    bootstrap_options(winrates, resamples_help="bootstrap resamples of each win rate's interval over scenarios",
                      seed_help="base seed of the bootstrap over scenarios", old_seed="--seed")
    winrates.set_defaults(func=run)


def run(args) -> None:
    from ..leaderboards import parse_columns, winrates_table

    table = winrates_table(args.table, args.group, args.scenarios, args.tie_rule, n_resamples=args.n_resamples,
                           seed=args.bootstrap_seed, columns=parse_columns(args.columns))
    if table.attrs["columns"]:  # which column played each role, so a misread table is seen at once
        print("helmlite: read columns " + ", ".join(f"{role}={column}" for role, column in table.attrs["columns"].items()),
              file=sys.stderr)
    sys.stdout.write(table.to_csv(index=False, float_format="%.4f", lineterminator="\n"))
