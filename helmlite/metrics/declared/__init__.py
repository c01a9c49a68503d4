"""One module per metric family, each declaring itself (:func:`helmlite.metrics.registry.metric_family`) on import;
all are imported here without a hand-kept list. A new family: a module here, its computation where its name says."""
import importlib
import pkgutil

#: The declaring modules (each family's own; :mod:`helmlite.metrics.bias` reads its word lists' name from its module).
__all__ = [module.name for module in pkgutil.iter_modules(__path__) if not module.name.startswith("_")]

for _name in __all__:
    importlib.import_module(f"{__name__}.{_name}")
