"""The logic each notebook calls, tested like any other code: one package per analysis, each with the same roles —
the computation, ``claims``, ``reproduction``, ``reference`` (cited constants), ``figures`` — behind its face."""

__all__ = ["depth", "helm_core", "helmet", "helpsteer2", "methods_lab", "sensitivity"]
