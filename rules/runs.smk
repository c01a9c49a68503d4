# Run jobs: each writes its run specs' folders results/runs/<run_id>/ (layout: helmlite.results).
# A job holds runs of one model for one analysis (the model is loaded once; start-up costs ~6-10 s per job
# on a CPU), hashed by run id into engine.jobs_per_analysis jobs, so adding a run re-runs only the job it
# lands in (helmlite.workflow.run_batches). Jobs share the SQLite request
# cache, so a crashed or interrupted job resumes without repeating model calls, and a cluster profile can
# spread them (each job declares threads and memory). Every 30 s a run prints its progress (requests done, ETA),
# and each finished run one line (its main metric, interval, model calls and cache hits), which Snakemake shows
# as the job goes and the job log keeps.
# Cluster time and memory limits and job order from the planner: `helmlite plan --configfile F` leaves each job's
# predicted seconds and memory in results/planner/jobs-<F's stem>.csv; without it a job gets hw.DEFAULT_RUNTIME_MIN
# minutes and hw.DEFAULT_MEM_MB.
PLANNED_S = hw.planned_job_seconds(CONFIGFILE)
PLANNED_MB = hw.planned_job_memory_mb(CONFIGFILE)
BATCHES = hw.run_batches(config)
# with a plan, ready jobs start longest critical path first (hw.run_job_priorities); without one, waited-on jobs, then those of more runs
PRIORITY = hw.run_job_priorities(config, PLANNED_S)
# a job whose runs ask requests an earlier analysis's job also asks starts after it and reads them from the cache
# (helmlite.workflow.shared_request_waits). It waits on that job's done-marker, whose path depends on the job id
# alone, so runs added to or changed in the waited-on job leave this job's inputs as they are; ancient(): the
# order only, never a re-run trigger
WAITS = hw.run_job_waits(config)
for batch_id, batch in BATCHES.items():

    rule:
        name:
            f"run_{batch_id}"
        input:
            models=sorted({marker for spec in batch for marker in model_marker(spec.model)}),
            data=sorted({cached(name) for spec in batch for name in hw.run_data(spec)}),
            after=[ancient(marker) for marker in WAITS.get(batch_id, [])],
        output:
            done=touch(hw.run_job_marker(config, batch_id)),
            instances=[run_file(spec.run_id, INSTANCES) for spec in batch],
            stats=[run_file(spec.run_id, STATS) for spec in batch],
            manifest=[run_file(spec.run_id, MANIFEST) for spec in batch],
        log:
            f"{DIRS['logs']}/runs/{batch_id}.log",
        benchmark:
            f"{DIRS['benchmarks']}/runs/{batch_id}.tsv"
        priority: PRIORITY[batch_id]
        conda:
            "../environment.yml"
        threads: ENGINE["threads"]
        resources:
            **hw.run_job_gpu_resources(config, batch[0].model),
            mem_mb=hw.run_job_mem_mb(PLANNED_MB.get(batch_id)),
            runtime=hw.run_job_runtime_min(PLANNED_S.get(batch_id)),
        params:
            specs=shlex.quote(json.dumps([spec.as_dict() for spec in batch], sort_keys=True)),
            results_dir=lambda w, output: os.path.dirname(os.path.dirname(output.stats[0])),
            cache=ENGINE["cache"],
            batch_size=ENGINE["batch_size"],
            chunk_size=ENGINE["chunk_size"],
            device=hw.model_placement(config, batch[0].model)["device"],
            n_resamples=config["bootstrap"]["n_resamples"],
            seed=config["bootstrap"]["seed"],
        shell:
            ": > {log:q}; helmlite run --spec-json {params.specs} --threads {threads} --batch-size {params.batch_size} "
            "--chunk-size {params.chunk_size} --device {params.device} --n-resamples {params.n_resamples} --bootstrap-seed {params.seed} "
            "--results-dir {params.results_dir:q} --cache {params.cache:q} --progress lines 2>> {log:q} | tee -a {log:q} "
            "|| (grep -m 1 '^helmlite: error:' {log:q} >&2 || tail -n 20 {log:q} >&2; exit 1)"


rule prepare_model:
    output:
        f"{MODEL_DIR}/{{model}}/helmlite_model.json",
    log:
        f"{DIRS['logs']}/models/{{model}}.log",
    conda:
        "../environment.yml"
    shell:
        "helmlite models prepare {wildcards.model:q} > {log:q} 2>&1 || (tail -n 20 {log:q} >&2; exit 1)"
