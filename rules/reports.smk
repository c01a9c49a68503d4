# Executed notebooks → one small site: a self-contained HTML page per report and reports/index.html, all sharing
# a header (navigation and the run's facts: a report's are its own analysis's, final once its notebook ran; the
# index's are the whole run's). A report needs only its own notebook, so one report is rendered alone.


rule html:
    input:
        notebook=f"{DIRS['reports']}/{{notebook}}.ipynb",
    output:
        f"{DIRS['reports']}/{{notebook}}.html",
    log:
        f"{DIRS['logs']}/{{notebook}}.html.log",
    conda:
        "../environment.yml"
    params:
        config=shlex.quote(json.dumps(config, sort_keys=True)),
        configfile=shlex.quote(os.path.relpath(CONFIGFILE)),
    shell:
        "helmlite html {input.notebook:q} {output:q} --config-json {params.config} --configfile {params.configfile} "
        "> {log:q} 2>&1"


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
        configfile=shlex.quote(os.path.relpath(CONFIGFILE)),
    shell:
        "helmlite index --config-json {params.config} --configfile {params.configfile} --out {output:q} > {log:q} 2>&1"
