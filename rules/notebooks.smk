# One rule per analysis notebook: `helmlite notebook` runs papermill with parameters from the config (as
# JSON) into a temporary file renamed onto reports/<notebook>.ipynb only on success; a failing notebook
# ends its log with one line (its error), which the rule shows.
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
        log:
            f"{DIRS['logs']}/{analysis.notebook}.log",
        benchmark:
            f"{DIRS['benchmarks']}/{analysis.notebook}.tsv"
        conda:
            "../environment.yml"
        threads: 1
        resources:
            mem_mb=2000,
        params:
            parameters=shlex.quote(json.dumps(hw.notebook_parameters(config, analysis), sort_keys=True)),
        shell:
            "helmlite notebook {input.notebook:q} {output.notebook:q} --parameters-json {params.parameters} "
            "> {log:q} 2>&1 || (tail -n 1 {log:q} >&2; echo 'cell outputs: {log}' >&2; exit 1)"
