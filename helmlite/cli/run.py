"""``helmlite run`` (execute run specs into run folders, cached and resumable) and ``helmlite prompts`` (a scenario's
adapted prompts without a model)."""
from __future__ import annotations

import json
import os
import sys

from ..errors import UserError
from ..models.devices import DTYPES
from .options import bootstrap_options, int_at_least, key_value, read_spec_file, renamed_option, writable_folder

PROMPTS_DESCRIPTION = (
    "Write the adapted prompt of every evaluation instance (after --max-instances subsampling) as JSON lines {\"id\", "
    "\"prompt\"} on stdout, without loading a model: inspect prompts before spending compute (HELM's dry run, lm-eval's "
    "--write_out). No tokenizer is loaded: a whitespace word count stands in for token counts and the context is "
    "unbounded, so prompts are never truncated here (a real run drops in-context examples, then cuts the input, when a "
    "prompt exceeds the model's context), and scenarios that size their inputs in tokens count words. For separate "
    "multiple choice the prompt is the text before each scored answer.")


def register(sub) -> None:
    run_cmd = sub.add_parser("run", help="execute one run spec into results/runs/<run_id>/ (cached, resumable)")
    run_cmd.add_argument("--spec", help="a YAML file with one run spec, or a list of them")
    run_cmd.add_argument("--spec-json", help="a run spec, or a list of run specs, as JSON (what Snakemake passes); "
                                             "each model is loaded once for all its runs")
    run_cmd.add_argument("--scenario", help="a registered scenario (helmlite prompts shows its prompts), e.g. mmlu")
    run_cmd.add_argument("--model", help="an embedded model (helmlite models list), a local Hugging Face model directory, "
                                         "or openai:<model> for the OpenAI-compatible server at $HELMLITE_OPENAI_BASE_URL")
    run_cmd.add_argument("--arg", action="append", help="scenario argument key=value (repeatable)")
    run_cmd.add_argument("--method", help="adaptation method (default: the scenario's)")
    run_cmd.add_argument("--max-instances", type=int_at_least(1), help="evaluate this many test instances (default: all)")
    run_cmd.add_argument("--results-dir", default="results/runs", help="where run folders go (default: results/runs)")
    run_cmd.add_argument("--cache", help="request cache file (default $HELMLITE_REQUEST_CACHE or results/cache/requests.sqlite)")
    run_cmd.add_argument("--threads", type=int_at_least(1), default=1, help="torch threads (Snakemake passes the rule's threads)")
    run_cmd.add_argument("--batch-size", type=int_at_least(1), default=8,
                         help="one-row scoring requests (joint multiple-choice letters) per forward pass; changes no stored value (tested bit for bit: fp32, CPU, one thread)")
    run_cmd.add_argument("--chunk-size", type=int_at_least(1), default=32, help="requests per cache commit (the unit of resumption)")
    run_cmd.add_argument("--device", default="auto",
                         help="where a transformers model runs: auto (CUDA when torch sees it, else CPU), cpu, cuda, cuda:N "
                              "or mps; recorded in the manifest, not part of the run id")
    run_cmd.add_argument("--dtype", choices=DTYPES,
                         help="a transformers model's precision (default float32; a spec file's own dtype otherwise); part of "
                              "the run id. bfloat16/float16 change scores, and may change them between batched and single requests "
                              "(docs/how-to/configs-and-clusters.md, \"Devices and precision\")")
    bootstrap_options(run_cmd)
    run_cmd.add_argument("--progress", choices=["bar", "lines", "none"], default="bar",
                         help="per-request progress with an ETA: a terminal bar, or a line every 30 s (what run jobs print)")
    run_cmd.add_argument("--quiet", action="store_true", help="no progress display (--progress none)")
    run_cmd.set_defaults(func=run)
    prompts_cmd = sub.add_parser("prompts", help="write a scenario's adapted prompts as JSONL on stdout without loading a model",
                                 description=PROMPTS_DESCRIPTION)
    prompts_cmd.add_argument("--scenario", required=True, help="a registered scenario, e.g. mmlu")
    prompts_cmd.add_argument("--arg", action="append", help="scenario argument key=value (repeatable)")
    prompts_cmd.add_argument("--max-instances", type=int_at_least(1), help="subsample this many evaluation instances (default: all)")
    prompts_cmd.add_argument("--method", help="adaptation method (default: the scenario's)")
    renamed_option(prompts_cmd, "--selection", "--adaptation", default="helm_compat", choices=["helm_compat", "hashed"],
                   help="helm_compat: crfm-helm's example selection and test subsampling, byte-identical prompts; "
                        "hashed: helmlite's hashed, letter-balanced selection (the config's adapter.selection)")
    renamed_option(prompts_cmd, "--selection-seed", "--seed", type=int_at_least(0), default=0,
                   help="in-context selection seed (HELM's train trial index; the config's adapter.seed)")
    prompts_cmd.add_argument("--data-seed", type=int_at_least(0), default=0, help="test subsampling seed (HELM always uses 0)")
    prompts_cmd.add_argument("--perturbation", help="the prompts under this perturbation (e.g. robustness: HELM's MildMix, "
                                                    "seeded as crfm-helm seeds it under helm_compat)")
    prompts_cmd.set_defaults(func=run)


def run(args) -> None:
    (execute if args.command == "run" else prompts)(args)


def _specs(args) -> list:
    """The run specs the command line gives: ``--spec-json``, ``--spec FILE`` or ``--scenario`` and ``--model``."""
    from ..evaluation import RunSpec

    if args.spec_json:
        try:
            raw = json.loads(args.spec_json)
        except json.JSONDecodeError as error:
            raise UserError(f"--spec-json: not valid JSON ({error}); expected a run spec object or a list of them") from None
    elif args.spec:
        raw = read_spec_file(args.spec)
    else:
        raw = {"scenario": args.scenario, "model": args.model, "max_instances": args.max_instances,
               "args": dict(key_value(a) for a in args.arg or ()),
               "adapter": {"method": args.method} if args.method else {}}
        if not args.scenario or not args.model:
            raise UserError("run: give --spec FILE, --spec-json JSON, or --scenario and --model")
    items = raw if isinstance(raw, list) else [raw]
    if not items or not all(isinstance(item, dict) for item in items):
        raise UserError("run spec: expected a mapping (scenario, model, ...) or a non-empty list of them")
    if args.dtype:
        items = [{**item, "dtype": args.dtype} for item in items]
    return [RunSpec.from_dict(item) for item in items]


def _quiet_transformers(args) -> None:
    """transformers' own "Loading weights" bar, too, only where bars are wanted."""
    if args.quiet or args.progress != "bar":
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from transformers.utils import logging as transformers_logging
        except ImportError:  # an install without the models extra (OpenAI-compatible servers only)
            pass
        else:
            transformers_logging.disable_progress_bar()


def execute(args) -> None:
    from ..evaluation import execute_all
    from ..models import served_by
    from ..models.cache import RequestCache
    from ..models.devices import resolve_device

    specs = _specs(args)
    # an unavailable device: one error line before anything is written (servers need no torch: not resolved for them)
    local = any(served_by(spec.model) is None for spec in specs)
    device = resolve_device(args.device) if local else args.device
    writable_folder(args.results_dir, "--results-dir")  # before any model loads, not after the first run
    _quiet_transformers(args)
    execute_all(specs, RequestCache(args.cache), results_dir=args.results_dir, threads=args.threads,
                batch_size=args.batch_size, chunk_size=args.chunk_size, device=device,
                progress="none" if args.quiet else args.progress, n_resamples=args.n_resamples, seed=args.bootstrap_seed,
                report=lambda line: print(line, flush=True))


def prompts(args) -> None:
    from ..evaluation import adapted_prompts
    from ..evaluation import RunSpec

    adapter = {"selection": args.selection, "seed": args.selection_seed}
    if args.method:
        adapter["method"] = args.method
    spec = RunSpec.from_dict({"scenario": args.scenario, "model": "none", "max_instances": args.max_instances,
                              "data_seed": args.data_seed, "args": dict(key_value(a) for a in args.arg or ()),
                              "adapter": adapter, "perturbations": [args.perturbation] if args.perturbation else []})
    for instance_id, prompt in adapted_prompts(spec, variant=args.perturbation or "identity"):
        sys.stdout.write(json.dumps({"id": instance_id, "prompt": prompt}, ensure_ascii=False) + "\n")
