# Executed notebook → self-contained HTML; then one landing page linking every report, figure, table.


rule html:
    input:
        f"{DIRS['reports']}/{{notebook}}.ipynb",
    output:
        f"{DIRS['reports']}/{{notebook}}.html",
    log:
        f"{DIRS['logs']}/{{notebook}}.html.log",
    conda:
        "../environment.yml"
    shell:
        "helmlite html {input:q} {output:q} > {log:q} 2>&1"


rule index:
    input:
        [html_of(analysis) for analysis in ANALYSES],
        [hw.outputs(config, analysis)["figures"] for analysis in ANALYSES],
        [hw.outputs(config, analysis)["tables"] for analysis in ANALYSES],
    output:
        f"{DIRS['reports']}/index.html",
    log:
        f"{DIRS['logs']}/index.log",
    conda:
        "../environment.yml"
    params:
        config=shlex.quote(json.dumps(config, sort_keys=True)),
    shell:
        "helmlite index --config-json {params.config} --out {output:q} > {log:q} 2>&1"
