"""HELM's robustness and fairness perturbations (Liang et al. 2022, §4.5–4.6, App. D).

* **Robustness (invariance)** — HELM's composite: lower-case → contractions (expanded forms turned into
  their contractions) → each word with a known common misspelling replaced with probability 0.1
  (HELM's Wikipedia-derived ``correct_to_misspelling.json``) → every run of spaces replaced by 1–3
  spaces. Only the input changes.
* **Fairness (counterfactual)** — HELM's three (``FAIRNESS_PERTURBATION_SPECS`` in
  ``src/helm/benchmark/run_expander.py``): dialect (SAE → AAE lexical substitution), gender (male →
  female **pronouns only**: ``GenderPerturbation(mode="pronouns", prob=1.0)``; HELM's gender-term
  mode is not part of its fairness runs) and race (White → Black American first names, gender
  preserved). Inputs *and* references change, and a name is replaced consistently within one instance.

Randomness is seeded per instance, so a perturbed instance is the same on every run: under
``adapter.selection: helm_compat`` as crfm-helm seeds it, ``Random("id<k>")`` with the instance's running
number in load order (:func:`helm_perturbation_seeds`), else from hashlib (instance id +
perturbation name). With the same generator every perturbation here gives crfm-helm's output byte for byte
(``tests/test_perturbations.py``). Word lists come through the data registry; HELM downloads its
name list and dialect mapping at run time — when those cannot be fetched the mirror's documented
stand-ins are used and :func:`resources_used` reports it (runs copy this into their manifest).
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

from .. import data
from ..scenarios import SCENARIO_VARIANTS, Instance, Reference
from ..errors import UserError
from ..seeds import derive_seed


MISSPELLINGS = "helm/resources/correct_to_misspelling.json"
CONTRACTIONS = "helm/resources/contraction_map.json"
GENDER_MAPPINGS = "helm/resources/gender_term_pronoun_mappings.json"
PERSON_NAMES = ("helm/resources/person_names.txt", "helm/resources/person_names_RECONSTRUCTED.txt")
DIALECT = ("helm/resources/SAE_to_AAVE_mapping.json", "helm/resources/upstream/VALUE_sae_aave_mapping_dict.json")
RUNTIME_FILES = {"dialect": DIALECT, "race": PERSON_NAMES}  # perturbation → (HELM's own file, the mirror's stand-in)
FIXED_FILES = {"robustness": (MISSPELLINGS, CONTRACTIONS), "gender": (GENDER_MAPPINGS,)}  # perturbation → the files it reads


def data_files(perturbations) -> list[str]:
    """Registry names the given perturbations read, for fetching before a run (``make data`` offline): each one's
    own files and, where HELM's own file may be unobtainable, the mirror's stand-in (HELM's is tried first at run
    time, :func:`resources_used`)."""
    names = [name for p in perturbations for name in FIXED_FILES.get(p, ())]
    return list(dict.fromkeys(names + [RUNTIME_FILES[p][1] for p in perturbations if p in RUNTIME_FILES]))


def match_case(source: str, target: str) -> str:
    """``helm.common.general.match_case``: ``target`` lower-cased when every character of ``source`` is lower
    case, upper-cased when every one is upper case, ``capitalize()``-d when ``source`` starts upper case, else
    as it is (a space is neither lower nor upper: "it is" → the target unchanged; "I" → upper)."""
    if all(letter.islower() for letter in source):
        return target.lower()
    if all(letter.isupper() for letter in source):
        return target.upper()
    if source and source[0].isupper():
        return target.capitalize()
    return target


def _json(name: str):
    return json.loads(data.fetch(name).read_text(encoding="utf-8"))


def _first_available(names: tuple[str, str]) -> tuple[Path, str]:
    """HELM's own file when obtainable, else the mirror's stand-in; with a description of which one it is."""
    own, standin = names
    path = data.try_fetch(own)
    if path is None:
        return data.fetch(standin), f"STAND-IN {standin} (HELM's {own} could not be fetched)"
    return path, f"HELM's {own}"


def resources_used(perturbations) -> dict[str, str]:
    """Which file serves each run-time list the given perturbations need (HELM's own or a stand-in)."""
    return {name: _first_available(RUNTIME_FILES[name])[1] for name in perturbations if name in RUNTIME_FILES}


@lru_cache(maxsize=None)
def _misspellings() -> tuple[dict, dict[str, tuple[str, ...]]]:
    """HELM's misspelling table and, per leading word, the keys that start with it in the table's order (every key
    starts with a word character; a few span several words, "a lot", or end in one that is not, "countries'")."""
    table = _json(MISSPELLINGS)
    by_lead: dict[str, list[str]] = {}
    for key in table:
        by_lead.setdefault(_WORD_RUN.match(key).group(), []).append(key)
    return table, {lead: tuple(keys) for lead, keys in by_lead.items()}


_WORD_RUN = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")


def _at_boundary(text: str, end: int) -> bool:
    """Whether ``\\b`` holds at ``end`` of ``text`` (between a word character and one that is not, or the text's end)."""
    before = bool(_WORD_CHAR.match(text, end - 1))
    return before != bool(end < len(text) and _WORD_CHAR.match(text, end))


def _misspelling_matches(text: str, by_lead: dict[str, tuple[str, ...]]):
    """``(start, key)`` of every match of HELM's pattern ``\\b(key1|key2|…)\\b`` (the table's keys in order),
    as ``re.sub`` finds them, without its 6,523-way alternation (compiled and tried at every position, it was most of
    a robustness run's preparation): a key starts with a word character, so a match starts where a run of word
    characters does, and only keys whose leading word is that whole run can match there; the first of them, in
    the table's order, that the text holds with a boundary after it is the alternation's match, and the scan goes on
    after it (tested against the alternation itself)."""
    resume = 0
    for run in _WORD_RUN.finditer(text):
        start = run.start()
        if start < resume:
            continue
        for key in by_lead.get(run.group(), ()):
            if text.startswith(key, start) and _at_boundary(text, start + len(key)):
                yield start, key
                resume = start + len(key)
                break


@lru_cache(maxsize=None)
def _contractions() -> tuple[dict, re.Pattern]:
    """crfm-helm's ``ContractionPerturbation``: expansion → contraction in its map's order (a later key wins an
    expansion two keys share, "I would" → "I'd", "i would" → "i'd"), one alternation in that order (so
    "cannot" is tried before "cannot have"), each expansion only when a space follows it."""
    reverse = {expanded: short for short, expanded in _json(CONTRACTIONS)["CONTRACTION_MAP"].items()}
    pattern = re.compile(r"\b({})\b ".format("|".join(reverse)), re.IGNORECASE | re.DOTALL)
    return reverse, pattern


@lru_cache(maxsize=None)
def _gender_pairs(key: str) -> tuple[tuple[str, str], ...]:
    table = _json(GENDER_MAPPINGS)
    columns = table["_columns"]
    male, female = columns.index("male"), columns.index("female")
    return tuple((row[male], row[female]) for row in table[key])


@lru_cache(maxsize=None)
def _names() -> dict[str, dict[str, list[str]]]:
    """category → value → first names, as ``PersonNamePerturbation.load_name_file`` reads HELM's person-name file
    (``<name>,<name_type>[,<category>,<value>]*``; first-name lines only, names lower-cased, file order)."""
    out: dict[str, dict[str, list[str]]] = {}
    for line in _first_available(PERSON_NAMES)[0].read_text(encoding="utf-8").splitlines():
        name, name_type, *categories = line.split(",")
        if name_type == "first_name":
            for category, value in zip(categories[0::2], categories[1::2]):
                out.setdefault(category, {}).setdefault(value, []).append(name.strip().lower())
    return out


@lru_cache(maxsize=None)
def _dialect() -> tuple[dict[str, list[str]], re.Pattern]:
    """crfm-helm's ``DialectPerturbation`` table and pattern: the mapping as the file orders it, every key
    (``re.escape``-d, in file order) between characters that are neither word characters nor '-'."""
    mapping = json.loads(_first_available(DIALECT)[0].read_text(encoding="utf-8"))
    return mapping, re.compile(r"[^\w-]({})[^\w-]".format("|".join(map(re.escape, mapping))), re.IGNORECASE)


# --- the individual perturbations: f(text, rng, memory) -> text ------------------------------------------

def lowercase(text: str, rng: random.Random, memory: dict) -> str:
    return text.lower()


def contraction(text: str, rng: random.Random, memory: dict) -> str:
    """HELM's ``ContractionPerturbation.perturb`` (:func:`_contractions`): "it is what it is" → "it's what it is"."""
    reverse, pattern = _contractions()

    def contract(m: re.Match) -> str:
        expanded = m.group(1)
        return match_case(expanded, reverse.get(expanded, reverse.get(expanded.lower()))) + " "

    return pattern.sub(contract, text)


def misspelling(text: str, rng: random.Random, memory: dict, prob: float = 0.1) -> str:
    """HELM's ``MisspellingPerturbation.perturb``: each match of its table's words (:func:`_misspelling_matches`)
    draws uniform < ``prob`` and then one of the word's listed misspellings, in the word's case."""
    table, by_lead = _misspellings()
    pieces, last = [], 0
    for start, word in _misspelling_matches(text, by_lead):
        pieces += [text[last:start], match_case(word, str(rng.choice(table[word]))) if rng.random() < prob else word]
        last = start + len(word)
    return "".join(pieces) + text[last:]


def extra_space(text: str, rng: random.Random, memory: dict, max_spaces: int = 3) -> str:
    return re.sub(r" +", lambda m: " " * rng.randint(1, max_spaces), text)


def helm_gender_pronouns(text: str, rng: random.Random, memory: dict) -> str:
    """HELM's fairness gender perturbation, character for character: ``GenderPerturbation.perturb`` with
    ``mode="pronouns"``, male → female, ``prob=1.0``. For each (male, female) pronoun pair in order, every
    match of ``[^\\w](word)[^\\w]`` (case-insensitive) is rewritten with the case of the match. HELM's
    pattern consumes the characters on both sides and the text is not padded, so a pronoun at the very start or
    end of the text is left alone, and of two pronouns separated by a single character only the first changes
    (as in HELM)."""
    for male, female in _gender_pairs("GENDER_PRONOUN_MAPPINGS"):
        def sub(m: re.Match, female=female) -> str:
            return m.group(0).replace(m.group(1), match_case(m.group(1), female))

        text = re.sub(f"[^\\w]({male})[^\\w]", sub, text, flags=re.IGNORECASE)
    return text


_NAME_TOKENS = re.compile(r"([^\w])")  # PersonNamePerturbation's sep_pattern


def _substitute_name(name: str, rng: random.Random) -> str | None:
    """``get_substitute_name`` with ``preserve_gender``: a Black American first name of the source name's
    gender (the first of female, male, neutral it is listed under), any one when it has none; None when that
    gender has no target name."""
    names = _names()
    targets, genders = names.get("race", {}).get("black_american", []), names.get("gender", {})
    gender = next((g for g in ("female", "male", "neutral") if name.lower() in genders.get(g, [])), None)
    options = targets if gender is None else [n for n in targets if n in genders[gender]]
    return rng.choice(options) if options else None


def race(text: str, rng: random.Random, memory: dict, prob: float = 1.0) -> str:
    """HELM's ``PersonNamePerturbation.perturb_with_persistency`` as its fairness run uses it (prob 1.0, White
    American → Black American first names, gender preserved): the text split at every non-word character; a
    token that is a source name not seen before draws uniform < ``prob`` and then its substitute
    (:func:`_substitute_name`); every occurrence of a substituted name takes it, in the token's case
    (``match_case``). ``memory`` keeps the substitutions and skipped names across an instance's texts."""
    source = set(_names().get("race", {}).get("white_american", []))
    mapping, skipped = memory.setdefault("race_names", {}), memory.setdefault("race_skipped", set())
    tokens = []
    for token in _NAME_TOKENS.split(text):
        lowered = token.lower()
        if lowered not in mapping and lowered not in skipped and lowered in source:
            if rng.uniform(0, 1) < prob:
                substitute = _substitute_name(token, rng)
                if substitute:
                    mapping[lowered] = substitute
            else:
                skipped.add(lowered)
        tokens.append(match_case(token, mapping[lowered]) if lowered in mapping else token)
    return "".join(tokens)


def dialect(text: str, rng: random.Random, memory: dict, prob: float = 1.0) -> str:
    """HELM's ``DialectPerturbation.perturb`` (SAE → AAVE, ``prob`` 1.0 as HELM's run expander): one regex pass
    (:func:`_dialect`; a word at the very start or end of the text has no boundary character and stays), per
    match a uniform draw against ``prob`` and then a choice among the word's substitutes, in that order."""
    mapping, pattern = _dialect()

    def substitute(m: re.Match) -> str:
        whole, word = m.group(0), m.group(1)
        if rng.uniform(0, 1) < prob:
            whole = whole.replace(word, match_case(word, rng.choice(mapping[word.lower()])))
        return whole

    return pattern.sub(substitute, text)


@dataclass(frozen=True)
class Perturbation:
    name: str
    kind: str  # "robustness" or "fairness"
    steps: tuple[Callable, ...]
    perturbs_references: bool
    version: int = 1  # raised when the perturbed text changes for the same instance: enters the run id

    def apply(self, text: str, rng: random.Random, memory: dict) -> str:
        for step in self.steps:
            text = step(text, rng, memory)
        return text


PERTURBATIONS = {
    # robustness 2 (2026-12-02): seeded as crfm-helm seeds it under helm_compat, Random("id<k>")
    "robustness": Perturbation("robustness", "robustness", (lowercase, contraction, misspelling, extra_space), False, 2),
    "dialect": Perturbation("dialect", "fairness", (dialect,), True),
    "gender": Perturbation("gender", "fairness", (helm_gender_pronouns,), True),
    "race": Perturbation("race", "fairness", (race,), True),
}


def perturbation(name: str) -> Perturbation:
    if name not in PERTURBATIONS:
        raise UserError(f"unknown perturbation {name!r}; known: {', '.join(PERTURBATIONS)} (and the scenario-supplied 'contrast' and 'baseline')")
    return PERTURBATIONS[name]


def perturbation_kind(name: str) -> str:
    """``robustness`` or ``fairness`` for a named perturbation (the worst-case group HELM aggregates it in); a
    scenario-supplied variant's own name (``contrast`` for contrast sets, ``baseline`` for the retrieval tasks'
    key-absent query)."""
    return name if name in SCENARIO_VARIANTS else perturbation(name).kind


def perturbation_kinds(names) -> dict[str, str]:
    """Each named perturbation's kind (:func:`perturbation_kind`): what the metric families' worst cases group by."""
    return {name: perturbation_kind(name) for name in names}


def perturb_instance(instance: Instance, name: str, seed: str | None = None) -> Instance:
    """The instance under one perturbation, its generator seeded with ``seed`` (crfm-helm's: the instance's HELM id
    ``id<k>``, :func:`helm_perturbation_seeds`) or, without one, by its id and the perturbation's name."""
    spec = perturbation(name)
    rng = random.Random(seed if seed is not None else derive_seed(instance.id, name))
    text, references = perturb_texts(spec, instance.input, instance.references, rng)
    return replace(instance, id=f"{instance.id}#{name}", input=text, references=references, contrast=None)


def perturb_texts(spec: Perturbation, text: str, references: tuple[Reference, ...], rng: random.Random
                  ) -> tuple[str, tuple[Reference, ...]]:
    """The input and references under one perturbation, in crfm-helm's order (``TextPerturbation.apply``,
    ``PersonNamePerturbation.apply``): the references first where the perturbation changes them, then the
    input, from one random generator (and, for names, one substitution memory)."""
    memory: dict = {}
    if spec.perturbs_references:
        references = tuple(Reference(spec.apply(r.output, rng, memory), r.correct, r.relevance) for r in references)
    return spec.apply(text, rng, memory), references
