# One job per registered file: cache → $HELMLITE_DATA_MIRROR → canonical URL, sha256-verified, atomic.
wildcard_constraints:
    name="|".join(re.escape(name) for name in registry()),


rule fetch:
    output:
        f"{DATA_CACHE}/{{name}}",
    log:
        f"{DIRS['logs']}/fetch/{{name}}.log",
    conda:
        "../environment.yml"
    shell:
        "helmlite fetch {wildcards.name:q} > {log:q} 2>&1 || (cat {log:q} >&2; exit 1)"
