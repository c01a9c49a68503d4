# One rule per analysis notebook: papermill executes it with parameters from the config (passed as
# YAML with -y), into a temporary file that is renamed onto reports/<notebook>.ipynb only on success.
for analysis in ANALYSES:

    rule:
        name:
            f"notebook_{analysis.key}"
        input:
            notebook=f"notebooks/{analysis.notebook}.ipynb",
            data=[cached(name) for name in analysis.data],
            runs=[run_file(run_id, STATS) for run_id in hw.analysis_runs(config, analysis)],
        output:
            notebook=hw.outputs(config, analysis)["notebook"],
            figures=hw.outputs(config, analysis)["figures"],
            tables=hw.outputs(config, analysis)["tables"],
            measured=hw.outputs(config, analysis)["measured"],
            manifest=hw.outputs(config, analysis)["manifest"],
        params:
            parameters=shlex.quote(json.dumps(hw.notebook_parameters(config, analysis), sort_keys=True)),
        log:
            f"{DIRS['logs']}/{analysis.notebook}.log",
        benchmark:
            f"{DIRS['benchmarks']}/{analysis.notebook}.tsv"
        threads: 1
        resources:
            mem_mb=2000,
        conda:
            "../environment.yml"
        shell:
            "papermill {input.notebook:q} {output.notebook:q}.part --kernel helmlite --cwd . "
            "-y {params.parameters} --log-output > {log:q} 2>&1 "
            "&& mv {output.notebook:q}.part {output.notebook:q} "
            "|| (rm -f {output.notebook:q}.part; tail -n 40 {log:q} >&2; exit 1)"
