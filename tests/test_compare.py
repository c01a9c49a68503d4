"""``helmlite compare``: the paired verdict for runs of any source, checked against statsmodels, scipy and a
bootstrap computed by hand; bad input ends in one line and exit status 2."""
from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from helmlite import cli, models
from helmlite.claims import format_number
from helmlite.compare import compare_runs
from helmlite.errors import UserError
from helmlite.imports import import_helm, import_inspect, import_lm_eval
from helmlite.results import read_run
from helmlite.evaluation.runner import RunSpec, execute
from helmlite.seeds import rng

from .fakes import WordModel, make_run

DATA = Path(__file__).parent / "data"
MODELS = ("smollm2-135m", "gemma3-270m")
BOOT = {"n_resamples": 200, "seed": 0}
MMLU = {"scenario": "mmlu", "args": {"subject": "econometrics"}, "max_instances": 30}


def compare_csv(*argv) -> pd.DataFrame:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["compare", *map(str, argv), "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(out.getvalue()))


def helm_runs(tmp_path) -> list[Path]:
    return [import_helm(DATA / "helm" / model, tmp_path / "helm", **BOOT)[0] for model in MODELS]


def lm_eval_runs(tmp_path) -> list[Path]:
    return [import_lm_eval(next((DATA / "lm_eval" / model).glob("samples_*.jsonl")), tmp_path / "lm", **BOOT)
            for model in MODELS]


def inspect_runs(tmp_path) -> list[Path]:
    return [import_inspect(next((DATA / "inspect" / model).glob("*.eval")), tmp_path / "inspect", **BOOT) for model in MODELS]


def native_runs(tmp_path, models=("a", "b")) -> list[Path]:
    return [execute(RunSpec.from_dict({**MMLU, "model": name}), WordModel(name), results_dir=tmp_path / "native")
            for name in models]


def table_2x2(folder_a: Path, folder_b: Path, metric: str) -> np.ndarray:
    a = {r.id: r.metrics[metric] for r in read_run(folder_a.parent, folder_a.name).records}
    b = {r.id: r.metrics[metric] for r in read_run(folder_b.parent, folder_b.name).records}
    pairs = [(a[i], b[i]) for i in sorted(a)]
    return np.array([[sum(x == 1 and y == 1 for x, y in pairs), sum(x == 1 and y == 0 for x, y in pairs)],
                     [sum(x == 0 and y == 1 for x, y in pairs), sum(x == 0 and y == 0 for x, y in pairs)]])


@pytest.mark.parametrize("source", ["helm", "lm-eval", "inspect", "native"])
def test_two_runs_get_the_exact_mcnemar_p_and_the_means_of_their_items(tmp_path, mirrored_cache, source):
    """Two imported crfm-helm runs, two lm-eval runs, two inspect_ai runs and two native runs: n, both means, the
    difference and the exact McNemar p equal statsmodels' ``mcnemar(exact=True)`` on the 2×2 table of the paired items."""
    folders = {"helm": helm_runs, "lm-eval": lm_eval_runs, "inspect": inspect_runs, "native": native_runs}[source](tmp_path)
    metric = read_run(folders[0].parent, folders[0].name).main_metric
    row = compare_csv(*folders).iloc[0]
    table = table_2x2(*folders, metric)
    assert row["metric"] == metric and row["n"] == table.sum() == (10 if source != "native" else 30)
    assert row["kind"] == "0/1" and row["interval"] == "newcombe-score/mcnemar-exact"
    assert row["mean_a"] == pytest.approx(table[0].sum() / table.sum()) and row["mean_b"] == pytest.approx(table[:, 0].sum() / table.sum())
    assert row["difference"] == pytest.approx((table[0, 1] - table[1, 0]) / table.sum())
    assert row["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)
    assert row["ci_low"] <= row["difference"] <= row["ci_high"]
    assert row["verdict"] in ("supported", "contradicted", "inconclusive") and row["dropped"] == 0


def test_three_runs_are_compared_in_every_pair_holm_corrected(tmp_path, mirrored_cache):
    """Three runs: three pairs in the order given, p-values Holm-adjusted together (statsmodels ``multipletests``)."""
    folders = native_runs(tmp_path, ("a", "b", "c"))
    table = compare_csv(*folders)
    a, b, c = (folder.name for folder in folders)
    assert list(zip(table["run_a"], table["run_b"])) == [(a, b), (a, c), (b, c)]
    assert table["p_adjusted"].tolist() == pytest.approx(multipletests(table["p_value"], method="holm")[1].tolist())
    assert {c.split(" (")[0] for c in table["correction"]} == {"holm over 3 claims"}


def test_a_continuous_metric_gets_the_paired_bootstrap_computed_by_hand():
    """F1-like scores: the paired bootstrap over items, recomputed here from the same seeded draws — the expanded
    percentile interval's order statistics (Hesterberg 2015 §5.1: levels Φ(√(n/(n−1))·t_{n−1})) and its p-value
    (k+1)/(B+1) — with scipy's t and normal distributions."""
    values = np.random.default_rng(7).uniform(size=(2, 40))
    a, b = values[0] ** 0.5, values[1]
    runs = [make_run("m1", "nq", a, run_id="x", metric="f1"), make_run("m2", "nq", b, run_id="y", metric="f1")]
    row = compare_runs(runs, n_resamples=999, seed=3).iloc[0]
    n, big_b, alpha = 40, 999, 0.05
    order = sorted(range(n), key=lambda k: f"i{k}")  # compare pairs the items in the order of their ids
    a, b = a[order], b[order]
    index = rng(3, "compare", "f1", "x", "y").integers(0, n, size=(big_b, n))
    boot = np.sort(a[index].mean(axis=1) - b[index].mean(axis=1))

    def level(q):  # the expanded percentile's nominal level of quantile q
        return scipy_stats.t.cdf(scipy_stats.norm.ppf(q) * np.sqrt((n - 1) / n), df=n - 1)

    k = np.arange(big_b + 1)
    r_low = int(np.sum(2 * level((k + 1) / (big_b + 1)) < alpha))
    r_high = int(np.sum(2 * (1 - level(1 - (k + 1) / (big_b + 1))) < alpha))
    k_le, k_ge = int(np.sum(boot <= 0)), int(np.sum(boot >= 0))
    p = min(1.0, 2 * level((k_le + 1) / (big_b + 1)), 2 * (1 - level(1 - (k_ge + 1) / (big_b + 1))))
    assert row["kind"] == "continuous" and row["interval"] == "expanded"
    assert row["difference"] == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((boot[r_low - 1], boot[big_b - r_high]), abs=1e-12)
    assert row["p_value"] == pytest.approx(p, abs=1e-12)
    assert row["verdict"] == ("supported" if row["ci_low"] > 0 and p < alpha else "inconclusive")


def test_a_continuous_difference_with_no_resample_beyond_0_prints_its_floor():
    """Every resample of the difference lies above 0 (the first run's scores are all higher): the p is the expanded
    percentile's lower-tail floor, 2·level(1/(B + 1)), and compare prints it as "≤ floor", with its Holm p too."""
    from helmlite.compare import render

    a = np.linspace(0.6, 1.0, 40)
    runs = [make_run("m1", "nq", a, run_id="x", metric="f1"), make_run("m2", "nq", a - 0.5, run_id="y", metric="f1")]
    table = compare_runs(runs, n_resamples=999, seed=3)
    row = table.iloc[0]
    floor = 2 * scipy_stats.t.cdf(scipy_stats.norm.ppf(1 / 1000) * np.sqrt(39 / 40), df=39)
    assert row["p_value"] == pytest.approx(floor) and row["p_floor"] == pytest.approx(floor)
    assert f"≤ {format_number(floor)}" in render(table, runs, 0.05) and "p ≤" in row["evidence"]


def test_missing_instances_can_be_dropped_and_are_counted(tmp_path, mirrored_cache):
    a, b = native_runs(tmp_path)
    lines = (b / "instances.jsonl").read_text().splitlines()
    (b / "instances.jsonl").write_text("\n".join(lines[:-3]) + "\n")
    stats = json.loads((b / "stats.json").read_text())
    stats["n_instances"] = len(lines) - 3
    (b / "stats.json").write_text(json.dumps(stats))
    row = compare_csv(a, b, "--on-missing", "drop").iloc[0]
    assert row["n"] == 27 and row["dropped"] == 3


def test_runs_made_differently_are_compared_with_a_warning(tmp_path, mirrored_cache, capsys):
    """Different adaptation is allowed: the warning names what differs, from the manifests."""
    a = execute(RunSpec.from_dict({**MMLU, "model": "a"}), WordModel("a"), results_dir=tmp_path)
    b = execute(RunSpec.from_dict({**MMLU, "model": "b", "adapter": {"max_train_instances": 0}}), WordModel("b"),
                results_dir=tmp_path)
    assert cli.main(["compare", a.name, b.name, "--results-dir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "helmlite: warning: the runs differ in adapter.max_train_instances (A: 5, B: 0; from their manifest.json)" in captured.err
    assert f"A = {a.name}" in captured.out and "1st > 2nd" in captured.out


def _edit_instances(folder: Path, edit) -> None:
    records = [json.loads(line) for line in (folder / "instances.jsonl").read_text().splitlines()]
    edit(records)
    (folder / "instances.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _rename_first(records):
    records[0]["id"] = "not-in-a"


def _duplicate_first(records):
    records[1]["id"] = records[0]["id"]


def _change_input(records):
    records[0]["input"] = "another question"


@pytest.mark.parametrize("case, message", [
    ("rename", "compare: 1 instance(s) of {a}/instances.jsonl with a value of exact_match are not in every other run ({b.name}): "),
    ("duplicate", "{b}/instances.jsonl: instance id(s) appear more than once (mmlu/"),  # read_run refuses it
    ("input", "compare: 1 instance(s) share an id but not their input in {a}/instances.jsonl and {b}/instances.jsonl: "),
    ("metric", "compare: metric 'nope' is not a per-instance metric of {a}/instances.jsonl; its metrics: "),
    ("scenario", "compare: the runs differ in scenario: 'mmlu' ({a}/manifest.json) vs "),
    ("unreadable", "stats.json is missing, unreadable or truncated"),
    ("absent", "compare: no-such-run is neither a run folder (a folder with stats.json) nor a run id under "),
    ("one", "compare: give at least two runs, got 1"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, mirrored_cache, capsys, case, message):
    a, b = native_runs(tmp_path)
    argv = [a, b]
    if case in ("rename", "duplicate", "input"):
        _edit_instances(b, {"rename": _rename_first, "duplicate": _duplicate_first, "input": _change_input}[case])
    elif case == "metric":
        argv += ["--metric", "nope"]
    elif case == "scenario":
        argv = [a, lm_eval_runs(tmp_path)[0]]
    elif case == "unreadable":
        shutil.copytree(b, tmp_path / "broken")
        (tmp_path / "broken" / "stats.json").write_text('{"run_id": ')
        argv = [a, tmp_path / "broken"]
    elif case == "absent":
        argv = [a, "no-such-run"]
    elif case == "one":
        argv = [a]
    assert cli.main(["compare", *map(str, argv)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("helmlite: error: ")
    assert message.format(a=a, b=b) in err[0]


def test_json_output_holds_every_row(tmp_path, mirrored_cache, capsys):
    a, b = native_runs(tmp_path)
    assert cli.main(["compare", str(a), str(b), "--format", "json", "--alpha", "0.1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["alpha"] == 0.1 and out["runs"] == [a.name, b.name] and len(out["comparisons"]) == 1
    assert out["comparisons"][0]["evidence"].startswith("90% CI")


def test_runs_of_two_models_made_alike_give_no_warning(tmp_path, capsys):
    """crfm-helm's adapter spec names the model (``model``, ``model_deployment``): two models' runs made alike are not
    reported as adapted differently."""
    assert cli.main(["compare", *map(str, helm_runs(tmp_path))]) == 0
    assert capsys.readouterr().err == ""


def _binary(pattern: str) -> list[float]:
    return [float(c) for c in pattern]


# 50 items: A right on 35, B on 20; 25 discordant pairs (20 only A, 5 only B): McNemar p = 0.0041
A_WINS = _binary("1" * 15 + "1" * 20 + "0" * 5 + "0" * 10)
B_LOSES = _binary("1" * 15 + "0" * 20 + "1" * 5 + "0" * 10)


def test_both_discordant_cells_and_the_verdicts_of_both_directions():
    """A 2×2 with both off-diagonal cells filled: p equals statsmodels' exact McNemar, the difference 15/50; "A > B"
    is supported, "B > A" (the same pair the other way round) contradicted — end to end through claims_table."""
    a, b = make_run("m1", "s", A_WINS, run_id="a"), make_run("m2", "s", B_LOSES, run_id="b")
    forward, backward = compare_runs([a, b]).iloc[0], compare_runs([b, a]).iloc[0]
    assert forward["p_value"] == pytest.approx(mcnemar([[15, 20], [5, 10]], exact=True).pvalue, abs=1e-12)
    assert forward["difference"] == pytest.approx(0.3) and forward["verdict"] == "supported"
    assert backward["difference"] == pytest.approx(-0.3) and backward["verdict"] == "contradicted"
    assert forward["ci_low"] > 0 and backward["ci_high"] < 0


def test_three_runs_with_distinct_p_values_are_holm_adjusted_together():
    c = _binary("10" * 25)
    runs = [make_run(f"m{k}", "s", values, run_id=name) for k, (name, values) in enumerate((("a", A_WINS), ("b", B_LOSES), ("c", c)))]
    table = compare_runs(runs)
    assert len(set(table["p_value"])) == 3 and (table["p_value"] < 1).all()
    assert table["p_adjusted"].tolist() == pytest.approx(multipletests(table["p_value"], method="holm")[1].tolist())


def test_dropped_counts_only_the_pairs_own_instances_left_out():
    """Runs a and b on 50 items, c on the first 47: a vs b drop 3 (not in every run), each counted once."""
    a, b = make_run("m1", "s", A_WINS, run_id="a"), make_run("m2", "s", B_LOSES, run_id="b")
    c = make_run("m3", "s", A_WINS[:47], run_id="c")
    table = compare_runs([a, b, c], on_missing="drop")
    assert table["n"].tolist() == [47, 47, 47] and table["dropped"].tolist() == [3, 3, 3]


def test_runs_of_another_split_are_refused():
    from dataclasses import replace

    a, b = make_run("m1", "s", A_WINS, run_id="a"), make_run("m2", "s", B_LOSES, run_id="b")
    b.manifest = replace(b.manifest, imported_from={"split": "valid"})
    with pytest.raises(UserError, match="the runs differ in split: 'test' \\(a/manifest.json\\) vs 'valid' \\(b/manifest.json\\)"):
        compare_runs([a, b])


@pytest.mark.parametrize("argv, message", [(["--alpha", "2"], "--alpha must lie strictly between 0 and 1, got 2.0"),
                                           (["--on-missing", "keep"], "invalid choice: 'keep'")])
def test_bad_options_are_one_line_and_exit_2(tmp_path, mirrored_cache, capsys, argv, message):
    a, b = native_runs(tmp_path)
    assert cli.main(["compare", str(a), str(b), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_a_metric_value_that_is_not_a_number_is_one_error(tmp_path, mirrored_cache, capsys):
    a, b = native_runs(tmp_path)

    def text_value(records):
        records[2]["metrics"]["exact_match"] = "yes"

    _edit_instances(b, text_value)
    assert cli.main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{b / 'instances.jsonl'}: the exact_match value of instance(s) " in err[0] and "is not a number" in err[0]


def test_compare_prints_the_predicted_time_to_run_n_to_detect_for_native_runs_only(tmp_path, mirrored_cache, monkeypatch,
                                                                                    capsys):
    """Faked rates (no calibration): the two native runs' time at "n to detect" is the plan's prediction for the same
    specs at that n (each run's instances, one model each), and grows with n; imported runs show n/a."""
    from helmlite import planning, workflow
    from helmlite.planning import rates
    from helmlite.planning.run_price import seconds_at

    if not all(models.model_path(m) for m in MODELS):
        pytest.skip("embedded models not prepared (make venv prepares them)")
    monkeypatch.setattr(planning.planner, "model_rates", lambda *a, **k: (rates.Rates(0.003, 0.05, 0.05, 0.1, 1.0), False))
    specs = [{**MMLU, "model": MODELS[0]}, {**MMLU, "model": MODELS[1], "adapter": {"seed": 1}}]  # other examples:
    a, b = [execute(RunSpec.from_dict(spec), WordModel(), results_dir=tmp_path / "native") for spec in specs]  # other answers
    table = compare_csv(a, b, "--rates-file", tmp_path / "rates.json")
    n = int(table.loc[0, "n_needed"])
    runs = [read_run(a.parent, a.name), read_run(b.parent, b.name)]
    config = workflow.validate_config({"analyses": ["helm_core"], "helm_core": {"scenarios": []},
                                       "runs": [{**spec, "max_instances": n} for spec in specs]}, "<test>")
    planned = planning.plan(config, rates_file=tmp_path / "rates.json").runs.set_index("model")
    assert table.loc[0, "seconds_to_detect_a"] == pytest.approx(planned.loc[MODELS[0], "predicted_s"])
    assert table.loc[0, "seconds_to_detect_b"] == pytest.approx(planned.loc[MODELS[1], "predicted_s"])
    assert table.loc[0, "instances_to_detect"] == min(n, planned["instances"].min())
    smaller = seconds_at([r.spec for r in runs], 10, rates_file=tmp_path / "rates.json")
    assert all(s < t for (s, _), t in zip(smaller, table.loc[0, ["seconds_to_detect_a", "seconds_to_detect_b"]]))
    assert cli.main(["compare", str(a), str(b), "--rates-file", str(tmp_path / "rates.json")]) == 0
    text = capsys.readouterr().out
    assert "time for n" in text and " min" in text.split("time for n")[1]
    assert cli.main(["compare", *map(str, helm_runs(tmp_path))]) == 0
    imported = capsys.readouterr().out
    header, row = imported.split("\n\n")[1].splitlines()[:2]
    assert header.split()[-7:] == ["detect", "time", "for", "n", "1st", ">", "2nd"]  # ... n to detect, time for n, verdict
    assert row.split()[-2] == "n/a" and row.split()[-3].isdigit()  # the time cell; n to detect is a number
