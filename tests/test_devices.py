"""Device and precision of the transformers backend (issue "Paper scale on real hardware", CPU half): option plumbing,
``auto`` on a machine without CUDA, bf16 on the CPU, the refusal of an unavailable device, the GPU request a cuda model
makes of the workflow."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from helmlite.cli import main
from helmlite.models import ModelError, load_model
from helmlite.models.devices import device_record, resolve_device
from helmlite.models.embedded import prepare
from helmlite.results import read_run
from helmlite.evaluation.runner import execute
from helmlite.evaluation.runspec import RunError, RunSpec
from helmlite.workflow import model_placement, run_batches, run_job_gpu_resources
from helmlite.workflow.config import parse_config

NO_CUDA = pytest.mark.skipif(torch.cuda.is_available(), reason="checks a machine without CUDA")
SPEC = {"scenario": "mmlu", "model": "smollm2-135m", "args": {"subject": "econometrics"}, "max_instances": 6}


@NO_CUDA
def test_auto_is_the_cpu_without_cuda_and_an_unavailable_device_is_refused():
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"
    for device, message in [("cuda", "sees no CUDA device"), ("cuda:1", "sees no CUDA device"),
                            ("cuda:x", "must be auto, cpu, cuda, cuda:N or mps"), ("tpu", "must be auto")]:
        with pytest.raises(ModelError, match=message):
            resolve_device(device)


@NO_CUDA
def test_run_on_an_unavailable_device_exits_2_with_one_error_line(tmp_path, capsys):
    code = main(["run", "--scenario", "mmlu", "--model", "smollm2-135m", "--device", "cuda", "--results-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "device 'cuda' requested" in err and not any(tmp_path.iterdir())


def test_dtype_is_part_of_the_run_id_and_float32_keeps_the_old_id():
    """A float32 spec is the spec as it was before dtype existed (same as_dict, same id: runs made before stay valid);
    bf16 and fp16 change scores, so each is a run of its own (its id names it)."""
    plain, fp32 = RunSpec.from_dict(SPEC), RunSpec.from_dict({**SPEC, "dtype": "float32"})
    bf16, fp16 = RunSpec.from_dict({**SPEC, "dtype": "bfloat16"}), RunSpec.from_dict({**SPEC, "dtype": "float16"})
    assert plain.run_id == fp32.run_id and "dtype" not in plain.as_dict()
    assert len({plain.run_id, bf16.run_id, fp16.run_id}) == 3 and "-bfloat16-" in bf16.run_id
    assert RunSpec.from_dict(bf16.as_dict()).run_id == bf16.run_id  # the manifest's spec gives the id back
    with pytest.raises(RunError, match="dtype must be one of float32, bfloat16, float16, got 'fp8'"):
        RunSpec.from_dict({**SPEC, "dtype": "fp8"})


def test_the_device_does_not_change_the_run_id():
    """Where the model runs is recorded (manifest ``hardware``), not part of the identity: fp32 gives the same answers on
    any device up to summation order, so a cached CPU answer stands for a GPU run of the same spec. The same config
    with its models on cpu, cuda or auto makes the same run ids; changing a model's dtype changes that model's."""
    spec = RunSpec.from_dict(SPEC)
    assert "device" not in json.dumps(spec.as_dict())
    ids = {device: sorted(s.run_id for batch in run_batches(_config({"device": device})).values() for s in batch)
           for device in ("cpu", "cuda", "cuda:1", "auto")}
    assert len({tuple(v) for v in ids.values()}) == 1 and spec.run_id in ids["cpu"]
    bf16 = sorted(s.run_id for batch in run_batches(_config({"device": "cuda", "dtype": "bfloat16"})).values()
                  for s in batch)
    assert not set(bf16) & set(ids["cpu"])


def test_bf16_on_the_cpu_runs_differs_from_fp32_by_a_bounded_amount_and_is_recorded(tmp_path, mirrored_cache):
    """SmolLM2 in bf16 on the CPU: every log-probability within 0.5 nats of fp32's on these prompts (bf16 keeps 8 bits of
    mantissa; measured here 2026-12-06 on 30 econometrics items: max |Δ| 0.11 nats, 28 of 30 predictions the same), not
    all equal; its manifest names dtype and device, its identity
    the dtype (so its cache entries are its own). Half precision runs without packing or prefix reuse (proven exact in
    fp32 on the CPU only)."""
    prepare("smollm2-135m")
    runs = {}
    for dtype in ("float32", "bfloat16"):
        spec = RunSpec.from_dict({**SPEC, "dtype": dtype})
        model = load_model("smollm2-135m", device="cpu", dtype=dtype)
        assert model.exact_paths == (dtype == "float32") and model.identity["dtype"] == f"torch.{dtype}"
        runs[dtype] = read_run(tmp_path, execute(spec, model, results_dir=tmp_path, n_resamples=50).name)
    bf16 = runs["bfloat16"]
    assert bf16.manifest.hardware["dtype"] == "bfloat16" and bf16.manifest.hardware["device"] == "cpu"
    assert bf16.manifest.hardware["torch"] == torch.__version__ and bf16.spec.dtype == "bfloat16"
    assert runs["float32"].manifest.hardware["dtype"] == "float32"
    pairs = [(a, b) for r32, r16 in zip(runs["float32"].records, bf16.records)
             for a, b in zip(r32.scores, r16.scores)]
    assert pairs and max(abs(a - b) for a, b in pairs) < 0.5 and any(a != b for a, b in pairs)


def test_device_record_names_the_cpu():
    record = device_record("cpu", "float32")
    assert record["device"] == "cpu" and record["cuda"] == torch.version.cuda
    from pathlib import Path

    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file() and "model name" in cpuinfo.read_text():  # the CPU's model name, as the rates' key has it
        assert record["device_name"] in cpuinfo.read_text() and record["device_name"] not in ("x86_64", "aarch64")


def _config(engine: dict) -> dict:
    raw = {"analyses": ["helmet"], "engine": engine,
           "runs": [{**SPEC, "model": model} for model in ("smollm2-135m", "gemma3-270m")]}
    return parse_config(json.dumps(raw), "<test>")


def test_the_config_places_each_model_and_a_cuda_model_asks_for_a_gpu():
    """engine.models overrides engine.device/dtype per model; the dtype enters the model's run specs, the device the run
    job's command line; a model on cuda asks for one GPU on engine.gpu_partition, auto and cpu for none."""
    config = _config({"device": "cpu", "models": {"smollm2-135m": {"device": "cuda:1", "dtype": "bfloat16"}},
                      "gpu_partition": "a100"})
    assert model_placement(config, "smollm2-135m") == {"device": "cuda:1", "dtype": "bfloat16"}
    assert model_placement(config, "gemma3-270m") == {"device": "cpu", "dtype": "float32"}
    assert run_job_gpu_resources(config, "smollm2-135m") == {"gpu": 1, "slurm_partition": "a100"}
    assert run_job_gpu_resources(config, "gemma3-270m") == {"gpu": 0}
    assert run_job_gpu_resources(_config({}), "smollm2-135m") == {"gpu": 0}  # auto (the default): no GPU asked for
    dtypes = {spec.model: spec.dtype for batch in run_batches(config).values() for spec in batch}
    assert dtypes == {"smollm2-135m": "bfloat16", "gemma3-270m": "float32"}


def test_snakemake_dry_run_shows_the_gpu_request(tmp_path, mirrored_cache):
    """``snakemake -n`` on a config with a cuda model prints the run job's gpu and partition resources and its
    ``--device cuda`` (the SLURM profile passes the same resources to sbatch: docs/how-to/configs-and-clusters.md, "Devices and precision")."""
    config = {"output_dir": str(tmp_path), "analyses": ["helmet"],
              "engine": {"results_dir": str(tmp_path / "runs"), "cache": str(tmp_path / "c.sqlite"),
                         "models": {"smollm2-135m": {"device": "cuda", "dtype": "bfloat16"}}},
              "runs": [SPEC]}
    path = tmp_path / "gpu.yaml"
    path.write_text(json.dumps(config))
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "-p", "--verbose", "--cores", "1", "--configfile",
                          str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    job = out.stdout.split("rule run_smollm2_135m_runs_1:")[1].split("rule ")[0]
    assert "slurm_partition=gpu" in job and "gpu=1" in job and "--device cuda" in job and '"dtype": "bfloat16"' in job


@NO_CUDA
def test_gpu_check_skips_cleanly_without_cuda():
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_check.sh"
    out = subprocess.run(["bash", str(script), "--max-instances", "2"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("gpu_check: skipped, torch") and "no CUDA device" in out.stdout


@NO_CUDA
def test_the_plan_prices_only_what_this_machines_cpu_rates_hold_for():
    """This machine's rates are measured on its CPU in float32: a model placed on cuda or in bf16 is counted, not
    priced (NaN seconds); auto prices on a machine without CUDA (it resolves to the CPU)."""
    from helmlite.planning import priced_here

    config = _config({"models": {"smollm2-135m": {"device": "cuda"}, "gemma3-270m": {"dtype": "bfloat16"}}})
    assert not priced_here(config, "smollm2-135m") and not priced_here(config, "gemma3-270m")
    assert priced_here(_config({}), "smollm2-135m") and priced_here(_config({"device": "cpu"}), "gemma3-270m")


def test_plan_takes_a_placement_from_the_command_line(tmp_path, mirrored_cache, capsys, monkeypatch):
    """``helmlite plan --device cuda`` plans the config's models on a GPU (no GPU needed here): tokens counted, seconds
    NaN; a malformed device is one error line (the schema's), exit 2."""
    import io

    import pandas as pd

    monkeypatch.chdir(tmp_path)
    prepare("smollm2-135m")
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps({"output_dir": str(tmp_path), "analyses": ["helmet"], "runs": [{**SPEC, "max_instances": 3}]}))
    assert main(["plan", "--configfile", str(path), "--device", "cuda", "--dtype", "bfloat16", "--format", "csv",
                 "--table", "runs"]) == 0
    runs = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert runs["predicted_s"].isna().all() and (runs["tokens_to_encode"] > 0).all() and runs["run_id"].str.contains("bfloat16").all()
    assert main(["plan", "--configfile", str(path), "--device", "tpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "tpu" in err
