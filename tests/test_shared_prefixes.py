"""Which prefixes a run's scoring requests declare shared (helmlite.evaluation.shared_prefixes): hand-derived on a depth
sweep of one haystack with a needle at three insertion points and one baseline query (one sharing group: one
context), and a request's prefixes unchanged by the rest of the run (other groups)."""
import os

from helmlite.evaluation.adaptation import Adapted
from helmlite.models import GenerationRequest, ScoreRequest
from helmlite.scenarios import TEST, Instance, Reference
from helmlite.evaluation.shared_prefixes import GROUP_MIN_CHARS, declare_shared_prefixes, sharing_group

HAYSTACK = "x " * 200  # 400 characters
START = "NEEDLE " + HAYSTACK + "Q?"
HALF = HAYSTACK[:200] + "NEEDLE " + HAYSTACK[200:] + "Q?"
HALF_BASELINE = HAYSTACK[:200] + "NEEDLE " + HAYSTACK[200:] + "Other?"
END = HAYSTACK + "NEEDLE Q?"


def _adapted(prompt: str, declared: tuple[int, ...] = ()) -> Adapted:
    return Adapted("id", prompt, (ScoreRequest(prompt, (" 1", " 2"), declared),), 0, False)


def _one_group(adapted: list[Adapted]) -> list[Adapted]:
    return declare_shared_prefixes(adapted, [("context", "c0")] * len(adapted))


def test_each_prompt_declares_the_branch_points_on_its_path():
    # sorted: START ('N' < 'x'), HALF_BASELINE, HALF ('O' < 'Q'), END ('N' < 'x' at character 200); common prefixes
    # with the next one: 0, 407 (400 haystack + "NEEDLE "), 200 (the haystack before the half-way needle), so
    # HALF_BASELINE also meets END at 200 (the running minimum of 407 and 200)
    out = _one_group([_adapted(p) for p in (START, HALF, HALF_BASELINE, END)])
    assert GROUP_MIN_CHARS == 64
    assert [a.requests[0].prefixes for a in out] == [(), (200, 407), (200, 407), (200,)]
    assert all(a.requests[0].prompt == p for a, p in zip(out, (START, HALF, HALF_BASELINE, END)))


def test_a_shared_prefix_counts_only_beyond_what_the_request_declares_already():
    # a few-shot prefix of 150 characters declared by the adapter: 200 adds only 50 (< GROUP_MIN_CHARS), 407 adds 257
    out = _one_group([_adapted(HALF, (150,)), _adapted(HALF_BASELINE, (150,)), _adapted(END, (150,))])
    assert 200 - 150 < GROUP_MIN_CHARS <= 407 - 150
    assert [a.requests[0].prefixes for a in out] == [(150, 407), (150, 407), (150,)]


def test_generation_requests_declare_shared_levels_and_lone_prompts_none():
    # HALF and END share the 200-character haystack before the half-way needle; START shares nothing with either
    generation = Adapted("g", HALF, (GenerationRequest(HALF, 5, (), 0.0, 0),), 0, False)
    out = _one_group([generation, _adapted(END), _adapted(START)])
    assert out[0].requests[0].prefixes == (200,) and out[0].requests[0].prompt == HALF
    assert out[1].requests[0].prefixes == (200,)
    assert out[2] == _adapted(START)  # a lone prompt is left as it is


def test_prompts_through_one_branch_point_declare_the_same_levels_above_it():
    """The property the backend's prefix cache needs (a level's cache depends on the levels it extends): for any two
    prompts, the levels they declare up to their common prefix are the same. Random prompts over a small alphabet,
    so that branch points nest at many depths."""
    import random

    rng = random.Random(0)

    def words(n: int) -> str:
        return "".join(rng.choice("ab ") for _ in range(n))

    roots = [words(rng.randint(0, 150)) for _ in range(4)]
    stems = [rng.choice(roots) + words(rng.randint(0, 200)) for _ in range(12)]  # stems nest inside roots
    prompts = sorted({rng.choice(stems) + "".join(rng.choice("abc") for _ in range(rng.randint(1, 200))) for _ in range(80)})
    out = {a.prompt: a.requests[0].prefixes for a in _one_group([_adapted(p) for p in prompts])}
    for p in prompts:
        for q in prompts:
            common = len(os.path.commonprefix([p, q]))
            assert [n for n in out[p] if n <= common] == [n for n in out[q] if n <= common], (p, q)
    assert max(map(len, out.values())) >= 2  # nested levels were declared


def test_a_requests_prefixes_depend_on_its_group_alone():
    """A run that grows, shrinks or reorders: the same context's prompts declare the same prefixes whatever other
    contexts or instances the run holds — here another context whose haystack shares 200 characters with this one's
    half-way prompt (in one trie it would have been a branch point), and an instance without a context. Groups: the
    synthetic context when the instance has one, else the instance."""
    other = HAYSTACK[:200] + "OTHER " + HAYSTACK[:150] + "Q?"
    alone = _one_group([_adapted(p) for p in (START, HALF, HALF_BASELINE, END)])
    mixed = declare_shared_prefixes([_adapted(other), *[_adapted(p) for p in (END, HALF_BASELINE, START, HALF)]],
                                    [("context", "c1")] + [("context", "c0")] * 4)
    by_prompt = {a.prompt: a.requests[0].prefixes for a in mixed}
    assert [by_prompt[a.prompt] for a in alone] == [a.requests[0].prefixes for a in alone]
    assert by_prompt[other] == ()  # alone in its group: nothing shared
    with_context = Instance("i7", "q", (Reference("a", True),), TEST, metadata={"context": 3, "depth": 0.5})
    without = Instance("i8", "q", (Reference("a", True),), TEST)
    assert sharing_group(with_context) == ("context", "3") and sharing_group(without) == ("instance", "i8")
