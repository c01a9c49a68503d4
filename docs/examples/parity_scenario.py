"""A worked example of a new scenario (docs/how-to/add-a-scenario.md; tests/test_docs.py runs it end to end).

"Is this number even or odd?" as a two-choice task, generated from a seed: no data file to register, so it runs
anywhere. A real scenario reads its files through :func:`helmlite.data.fetch` and names them in ``data=`` (see
``helmlite/scenarios/boolq.py``); inside the package, the module goes in ``helmlite/scenarios/`` and is found on import.
"""
import random

from helmlite.scenarios import TEST, TRAIN, Instance, Reference, register

CHOICES = ("even", "odd")


@register("parity", main_metric="exact_match", default_method="multiple_choice_joint", methods="choices",
          adapter={"instructions": "Answer whether the number is even or odd.", "max_train_instances": 2})
def load(n: int = 40, seed: int = 0) -> list[Instance]:
    """Parity of a number: n test questions and 10 in-context examples, drawn with ``seed``."""
    rng = random.Random(seed)
    instances = []
    for k in range(n + 10):
        number = rng.randrange(1000)
        answer = CHOICES[number % 2]
        references = tuple(Reference(choice, choice == answer) for choice in CHOICES)
        split = TRAIN if k < 10 else TEST
        instances.append(Instance(f"parity/{k}", f"Number: {number}", references, split))
    return instances
