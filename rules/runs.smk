# One job per run spec: `helmlite run` writes results/runs/<run_id>/{instances.jsonl,stats.json,manifest.json}.
# Jobs share the SQLite request cache, so a crashed or interrupted run resumes without repeating work,
# and a cluster profile can spread them (each job declares threads and memory).
if RUNS:

    wildcard_constraints:
        run_id="|".join(re.escape(run_id) for run_id in RUNS),

    rule run:
        input:
            model=lambda w: model_marker(RUNS[w.run_id].model),
            data=lambda w: [cached(name) for name in scenario(RUNS[w.run_id].scenario).data],
        output:
            instances=f"{ENGINE['results_dir']}/{{run_id}}/instances.jsonl",
            stats=f"{ENGINE['results_dir']}/{{run_id}}/stats.json",
            manifest=f"{ENGINE['results_dir']}/{{run_id}}/manifest.json",
        params:
            spec=lambda w: shlex.quote(json.dumps(RUNS[w.run_id].as_dict(), sort_keys=True)),
            results_dir=lambda w, output: os.path.dirname(os.path.dirname(output.stats)),
            cache=ENGINE["cache"],
            batch_size=ENGINE["batch_size"],
        threads: ENGINE["threads"]
        resources:
            mem_mb=4000,
        log:
            f"{DIRS['logs']}/runs/{{run_id}}.log",
        benchmark:
            f"{DIRS['benchmarks']}/runs/{{run_id}}.tsv"
        conda:
            "../environment.yml"
        shell:
            "helmlite run --spec-json {params.spec} --threads {threads} --batch-size {params.batch_size} "
            "--results-dir {params.results_dir:q} --cache {params.cache:q} --quiet > {log:q} 2>&1 "
            "|| (tail -n 20 {log:q} >&2; exit 1)"


rule prepare_model:
    output:
        f"{MODEL_DIR}/{{model}}/helmlite_model.json",
    log:
        f"{DIRS['logs']}/models/{{model}}.log",
    conda:
        "../environment.yml"
    shell:
        "helmlite models prepare {wildcards.model:q} > {log:q} 2>&1 || (tail -n 20 {log:q} >&2; exit 1)"
