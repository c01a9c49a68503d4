"""Perturbations: HELM's golden expectations where our resources match HELM's, seeding, case handling."""
from __future__ import annotations

import json
import random
import re

import pytest

from helmlite.evaluation import perturbations as P
from helmlite.scenarios import Instance, Reference


@pytest.fixture
def golden(mirror, mirrored_cache):
    return {(c["perturbation"], c["params"].get("mode")): c
            for c in json.loads((mirror / "helm/resources/perturbation_golden_examples.json").read_text())["cases"]}


# the deterministic cases of HELM's test_perturbation.py that a helmlite perturbation step runs (HELM's gender
# "terms" mode and its expansion perturbation are not part of HELM's robustness/fairness runs, nor of helmlite)
@pytest.mark.parametrize("key,function", [(("contraction", None), P.contraction), (("lowercase", None), P.lowercase),
                                          (("gender", "pronouns"), P.helm_gender_pronouns)])
def test_deterministic_golden_cases(golden, key, function):
    case = golden[key]
    assert function(case["input"], random.Random(0), {}) == case["expected"]
    if key[0] == "gender":  # fairness perturbations change references too
        assert function(case["reference"], random.Random(0), {}) == case["expected_reference"]


def test_misspelling_golden_with_helms_seed(golden):
    """HELM's prob=1 example (``test_misspelling_perturbation``): its instance id is "id0" and HELM seeds a
    perturbation with ``Random(instance.id)`` (``Perturbation.get_rng``), so the same seed gives HELM's expected text,
    including the words whose misspelling is drawn from several ("the" → "hten")."""
    case = golden[("misspellings", None)]
    assert P.misspelling(case["input"], random.Random("id0"), {}, prob=1.0) == case["expected"]
    assert P.misspelling(case["input"], random.Random("id1"), {}, prob=1.0) != case["expected"]  # the seed matters


def _misspelling_by_alternation(text: str, rng: random.Random, prob: float) -> str:
    """The reference: crfm-helm's ``MisspellingPerturbation.perturb`` — one ``re.sub`` over the pattern
    ``\\b(key1|key2|…)\\b`` of the table's keys in order (HELM joins the keys unescaped; the only characters
    ``re.escape`` changes in this table, '-' and "'", are literal either way)."""
    table, _ = P._misspellings()
    pattern = re.compile(r"\b({})\b".format("|".join(map(re.escape, table))))

    def sub(m: re.Match) -> str:
        word = m.group(1)
        return P.match_case(word, str(rng.choice(table[word]))) if rng.random() < prob else word

    return pattern.sub(sub, text)


def test_misspelling_scan_equals_the_alternation(mirror, mirrored_cache):
    """The scanner finds what HELM's alternation finds, in order, with the same draws: on every BBQ Age context and
    question (lower-cased, as the robustness composite gives them) and on texts made of the table's own keys —
    multi-word keys ("a lot"), a key ending in an apostrophe ("countries'"), keys inside longer words ("a lottery"),
    underscores, digits and non-ASCII letters next to them."""
    table, _ = P._misspellings()
    texts = []
    for line in (mirror / "helm/datasets/bbq/Age.jsonl").read_text().splitlines()[:400]:
        item = json.loads(line)
        texts += [item["context"].lower(), item["question"]]
    keys = list(table)
    rng = random.Random(7)
    glue = [" ", ", ", "-", "'", "_", "9", "é", ". ", "  ", "\n"]
    for _ in range(400):
        texts.append("".join(rng.choice(keys) + rng.choice(glue) for _ in range(12)))
    texts += ["a lottery a lot", "countries'x countries' countries'", "About a About about_a", "a lot,a lot"]
    changed = 0
    for k, text in enumerate(texts):
        ours = P.misspelling(text, random.Random(f"id{k}"), {}, prob=0.5)
        assert ours == _misspelling_by_alternation(text, random.Random(f"id{k}"), 0.5), text
        changed += ours != text
    assert changed > 500  # the texts do exercise the table

def test_race_names_are_consistent_within_an_instance_and_keep_gender(golden):
    case = golden[("person_name", None)]
    instance = Instance("x", case["input"], (Reference(case["reference"], True),), "test")
    out = P.perturb_instance(instance, "race")
    first = out.input.split()[3].strip(",")  # "Jack" → a Black American male first name
    names = P._names()
    assert first.lower() in names["race"]["black_american"] and first.lower() in names["gender"]["male"]
    assert "Jack" not in out.input
    peter = out.input.split()[4].strip(",")
    assert out.references[0].output == f"{peter} and {peter.lower()} were friends."


def test_robustness_is_seeded_per_instance_and_keeps_references(mirrored_cache):
    instance = Instance("imdb/1", "It is NOT available, and they are here.", (Reference("Yes", True),), "test")
    a, b = P.perturb_instance(instance, "robustness"), P.perturb_instance(instance, "robustness")
    assert a == b and a.input != instance.input and a.references == instance.references
    assert a.input.replace("  ", " ").replace("  ", " ").startswith("it")  # lower-cased
    assert "aren't" in a.input or "they're" in a.input  # contraction applied
    other = P.perturb_instance(Instance("imdb/2", instance.input, instance.references, "test"), "robustness")
    assert other.id == "imdb/2#robustness"


def test_dialect_uses_the_mapping_and_reports_a_stand_in(mirrored_cache, monkeypatch):
    monkeypatch.setenv("HELMLITE_OFFLINE", "1")
    out = P.dialect("I will remember this day.", random.Random(0), {})
    assert "dis" in out.split()
    assert P.resources_used(["dialect", "robustness"]) == {
        "dialect": "STAND-IN helm/resources/upstream/VALUE_sae_aave_mapping_dict.json "
                   "(HELM's helm/resources/SAE_to_AAVE_mapping.json could not be fetched)"}


def test_match_case_and_unknown_perturbation():
    """helm.common.general.match_case, worked by hand: every character lower → lower; every one upper → upper
    (a single "I" too); starts upper → capitalize() (the rest lower: "McDonald" → "Mcdonald"); else unchanged
    (a space is neither lower nor upper, so "it is" leaves the target as it is)."""
    assert (P.match_case("Man", "woman"), P.match_case("MAN", "woman"), P.match_case("man", "WoMan")) == ("Woman", "WOMAN", "woman")
    assert P.match_case("I", "you") == "YOU" and P.match_case("Old", "McDonald") == "Mcdonald"
    assert P.match_case("it is", "it's") == "it's" and P.match_case("iT", "x") == "x"
    with pytest.raises(ValueError, match="unknown perturbation 'typo'"):
        P.perturbation("typo")


@pytest.mark.parametrize("text,expected", [
    # worked by hand from crfm-helm's ContractionPerturbation (contraction_expansion_perturbation.py): an
    # expansion is contracted only when a space follows it, alternatives are tried in the map's order; each expected
    # text is what crfm-helm 0.5.16's ContractionPerturbation().perturb(text, Random(0)) returned (2026-12-04)
    ("it is what it is", "it's what it is"),          # the last "it is" ends the text: no space after it
    ("She is a doctor, and I am a student", "She's a doctor, and I'm a student"),  # HELM's own test case
    ("you cannot have it all", "you can't have it all"),  # "cannot" (can't) comes before "cannot have" in the map
    ("I would go and i would stay", "I'd go and i'd stay"),  # case-sensitive keys: "I would" and "i would"
    ("IT IS here", "It's here"),                       # the space is not upper case: capitalize(), not upper()
])
def test_contraction_follows_helm(mirrored_cache, text, expected):
    assert P.contraction(text, random.Random(0), {}) == expected


def test_dialect_is_one_pass_with_helms_boundaries(mirrored_cache, monkeypatch):
    """crfm-helm's DialectPerturbation, worked by hand on the mirror's SAE → AAVE stand-in ("with" → w, w/, wid,
    wit, witt; "this" → dis): a match needs a character that is neither a word character nor '-' on each side,
    and the text is not padded — "With" opening the text and "this" in "this-time" stay; per match HELM draws
    rng.uniform(0, 1) (against prob 1.0) and then rng.choice among the substitutes, in that order. The expected text is
    what crfm-helm 0.5.16's DialectPerturbation(prob=1.0, SAE → AAVE, that mapping file).perturb(text, Random(1))
    returned (2026-12-04)."""
    monkeypatch.setenv("HELMLITE_OFFLINE", "1")
    text = "With this plan, go with them this-time."
    assert P.dialect(text, random.Random(1), {}) == "With dis plan, go wit them this-time."


# crfm-helm 0.5.16's own classes on benchmarks/helm_perturbation_hashes.py's 200 IMDb texts (random.Random("id<k>"),
# references first), with the word lists helmlite reads (here the mirror's stand-ins, passed to HELM's classes):
# (texts whose input changed, sha256 of every output). Made on 2026-12-01 by that script.
CRFM_HELM_PERTURBATIONS = {
    "contraction": (152, "7ed982c4111b9f8182cdd36e4eecb1ff41733d20871443a5c77c4bd85348e417"),
    # MildMixPerturbation (HELM's robustness perturbation; its misspelling table is the one in crfm-helm's package),
    # added 2026-12-02
    "robustness": (200, "b6c591909b20c24912d8548cddddc9900dd8aa6a75039ec5e6703e6977bc6d92"),
    "dialect": (200, "11439bb27d07bf9f2d7c6fcdd5069e4b80ffcc79a55d0232ad9a610ea97e8a3b"),
    "gender": (99, "f145cc4b97823cc68423aefcfd9c24477cb22f489524ba901ed2178c0d3d2476"),
    "race": (29, "f39d0d12c293af6663ded44285f0419e01ad13ab5e03a9af672b3dbc977861bb"),
}


@pytest.mark.parametrize("name", list(CRFM_HELM_PERTURBATIONS))
def test_perturbations_equal_crfm_helms_own_classes(mirrored_cache, monkeypatch, name):
    """Byte for byte against ContractionPerturbation, DialectPerturbation (SAE → AAVE, prob 1), GenderPerturbation
    (pronouns, prob 1) and PersonNamePerturbation (White → Black American first names, prob 1, gender kept), each
    run by crfm-helm on the same texts with the same seeds and word lists."""
    import sys
    from pathlib import Path

    monkeypatch.setenv("HELMLITE_OFFLINE", "1")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from helm_perturbation_hashes import digest, texts

    spec = P.Perturbation("contraction", "robustness", (P.contraction,), False) if name == "contraction" else P.perturbation(name)
    outputs, changed = [], 0
    for k, (text, references) in enumerate(texts()):
        perturbed, refs = P.perturb_texts(spec, text, tuple(Reference(r, True) for r in references), random.Random(f"id{k}"))
        outputs += [perturbed] + [r.output for r in refs]
        changed += perturbed != text
    assert (changed, digest(outputs)) == CRFM_HELM_PERTURBATIONS[name]


@pytest.mark.parametrize("name", sorted(P.PERTURBATIONS))
def test_data_files_list_every_file_a_perturbation_reads(mirrored_cache, monkeypatch, name):
    """`make data` fetches a run's perturbation files before any job (workflow.run_data): every registry file a
    perturbation actually opens while perturbing (recorded by spying on helmlite.data, caches cleared) is in
    data_files, or is HELM's own file of a pair whose stand-in is (tried first at run time, may be unobtainable)."""
    from helmlite import data

    opened = []
    for fetcher in ("fetch", "try_fetch"):
        real = getattr(data, fetcher)
        monkeypatch.setattr(data, fetcher, lambda n, real=real: opened.append(n) or real(n))
    for value in vars(P).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()
    text = "She said John Smith can not go, and I would say he is right about the old car."
    P.perturb_instance(Instance("x", text, (Reference("He is right.", True),), "test"), name)
    own = {pair[0] for pair in P.RUNTIME_FILES.values()}
    assert opened and set(opened) - own <= set(P.data_files([name]))
