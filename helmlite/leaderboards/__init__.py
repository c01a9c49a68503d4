"""Leaderboards as data: read any leaderboard table (HELM's JSON, wide or long CSV) into one long frame, HELM's rules
for it (metric directions, scales, hidden cells, contamination, creators), and mean win rates with their bootstrap
intervals over scenarios (Liang et al. 2022, §3.3 and App. B). Notebook 01 uses it for HELM v0.4.0's leaderboard;
``helmlite leaderboard winrates`` for any table.

``reading`` reads a file, ``columns`` names which column plays which role, ``table`` asks the frame for groups and
scenarios, ``helm_rules`` holds HELM's schema rules, ``winrates`` ranks."""
from . import helm_rules, winrates
from .columns import COLUMN_ROLES, LeaderboardFormatError, parse_columns
from .helm_rules import AGGREGATE, TIE_RULES, WIN_RATE
from .reading import load_leaderboard
from .table import COLUMNS, DEFAULT_GROUP, EXTRA, MIN_COVERAGE, coverage, group_name, groups, scenarios, select, with_defaults
from .winrates import RankingView, mean_win_rates, winrates_table

__all__ = ["AGGREGATE", "COLUMNS", "COLUMN_ROLES", "DEFAULT_GROUP", "EXTRA", "LeaderboardFormatError", "MIN_COVERAGE",
           "RankingView", "TIE_RULES", "WIN_RATE", "coverage", "group_name", "groups", "helm_rules", "load_leaderboard",
           "mean_win_rates", "parse_columns", "scenarios", "select", "winrates", "winrates_table", "with_defaults"]
