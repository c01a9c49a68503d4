"""Which string prefixes a run's requests declare shared (``prefixes`` of :class:`~helmlite.models.ScoreRequest`
and :class:`~helmlite.models.GenerationRequest`), beyond the few-shot prefix the adapter declares.

A backend encodes each declared prefix once and reuses its key/value cache (the transformers backend keeps
recent ones), and a request's scores depend on that request alone — so what is shared has to be part of each
request (and of its cache key), decided before any is sent. It is decided within the request's **sharing group**,
fixed by the prompt's structure, never by the rest of the run: an instance with its perturbed and baseline variants,
or every instance of one synthetic context (its ``context`` metadata: the depths of one haystack — all of them, those a
``max_instances`` subsample leaves out included: the runner passes them as ``peers``). So adding, removing or
reordering the run's other instances changes no request's prefixes, and a grown run finds its earlier answers in the
request cache. Within a group the prompts form a trie; a prompt's candidate levels are the branch
points on its path (its longest common prefixes with the group's other prompts), kept from the root down when a level
is at least :data:`GROUP_MIN_CHARS` past the last one kept. Every prompt through a branch point has the same branch
points above it, so all of them keep or drop it alike and build its cache the same way. That covers what repeats: a
needle's haystack before the needle, the same at every deeper insertion point of one context (Liu et al. 2023, §2's
depth sweep), and a context's text before its query, shared with the query's baseline variant.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .._common_prefix import common_prefix
from .adaptation import Adapted
from ..models import GenerationRequest, ScoreRequest

REQUESTS = (ScoreRequest, GenerationRequest)

#: The least text (characters, ~16 tokens: the transformers backend's ``min_group_tokens``) a level must add to
#: the one below it. Questions of one multiple-choice run differ soon after their few-shot prefix, and so does a
#: robustness-perturbed question from its original (HELM lower-cases it), so those requests mostly stay those of a
#: run without the perturbation (another analysis's run is then answered from the request cache).
GROUP_MIN_CHARS = 64


def _branch_points(prompts: list[str], floor: dict[str, int]) -> dict[str, list[int]]:
    """Per prompt of ``prompts`` (sorted), its longest common prefixes with the others that reach
    ``floor[prompt] + GROUP_MIN_CHARS``: in sorted order, the running minima of the neighbours' common prefixes
    to its left and to its right (scanned until they fall below that)."""
    adjacent = [common_prefix(*pair) for pair in zip(prompts, prompts[1:])]
    points: dict[str, list[int]] = {}
    for i, prompt in enumerate(prompts):
        least, found = floor[prompt] + GROUP_MIN_CHARS, set()
        for steps in (range(i, len(adjacent)), range(i - 1, -1, -1)):
            running = None
            for j in steps:
                running = adjacent[j] if running is None else min(running, adjacent[j])
                if running < least:
                    break
                found.add(running)
        points[prompt] = sorted(found)
    return points


def sharing_group(instance) -> tuple:
    """The group whose prompts may share declared prefixes (module docstring): the instance's synthetic context when
    it has one, else the instance itself (with its variants, which keep its id)."""
    context = instance.metadata.get("context")
    return ("context", str(context)) if context is not None else ("instance", instance.id)


def declare_shared_prefixes(adapted: Sequence[Adapted], groups: Sequence, peers: Sequence[Adapted] = (),
                            peer_groups: Sequence = ()) -> list[Adapted]:
    """``adapted`` with each request's ``prefixes`` extended by the levels it shares within its group (``groups[i]``:
    :func:`sharing_group` of ``adapted[i]``'s instance; module docstring), in increasing order, each at least
    :data:`GROUP_MIN_CHARS` past the one before (or past what it declares). ``peers`` (in ``peer_groups``): prompts of
    the groups' other instances that the run does not ask for — a context's depths a subsample left out — which count
    in the trie, so that a group's levels are the same whichever of its instances a run keeps."""
    floors: dict = {}
    for a, group in [*zip(adapted, groups), *zip(peers, peer_groups)]:
        floor = floors.setdefault(group, {})
        for r in a.requests:
            if isinstance(r, REQUESTS):
                floor[r.prompt] = max(floor.get(r.prompt, 0), max(r.prefixes, default=0))
    points = {group: _branch_points(sorted(floor), floor) for group, floor in floors.items()}

    def declared(request, group):
        levels, last = [], max(request.prefixes, default=0)
        for length in points[group][request.prompt]:
            if length >= last + GROUP_MIN_CHARS:
                levels.append(length)
                last = length
        return replace(request, prefixes=request.prefixes + tuple(levels)) if levels else request

    return [replace(a, requests=tuple(declared(r, group) if isinstance(r, REQUESTS) else r for r in a.requests))
            for a, group in zip(adapted, groups)]
