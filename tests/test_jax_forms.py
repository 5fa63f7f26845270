"""Every public JAX callable that takes a function is classified by how it compiles the user's program
(``jaxmodel/families/jax_forms.py``), and each form that compiles one is checked against JAX's own
backend-compile events (``tests/test_watch_truth.py``). A new JAX with a new such form fails here until
someone classifies it (and, if it compiles the user's program, adds a truth case)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings

from jitscope.jaxmodel.families import jax_forms

# The public modules whose callables are enumerated (every importable jax.experimental.* too).
MODULES = ("jax", "jax.lax", "jax.numpy")
# A callable takes a function when a parameter is annotated ``Callable`` or has one of these names.
FUNCTION_PARAMETERS = {"fun", "f", "fn", "func", "function", "body_fun", "cond_fun", "true_fun", "false_fun",
                       "branches", "body", "callback", "computation", "kernel", "funclist", "func1d",
                       "decomposition", "matvec", "solve", "default"}


def _modules() -> list[str]:
    import jax.experimental

    return [*MODULES, *(f"jax.experimental.{m.name}" for m in pkgutil.iter_modules(jax.experimental.__path__)
                        if not m.name.startswith("_"))]


def public_function_forms() -> dict[str, object]:
    """qualified name -> callable, for the public callables that take a function (first name wins)."""
    found: dict[int, tuple[str, object]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in _modules():
            try:
                module = importlib.import_module(name)
            except Exception:  # noqa: BLE001 - an experimental module this install cannot import
                continue
            for attr in sorted(dir(module)):
                obj = getattr(module, attr, None)
                if attr.startswith("_") or not callable(obj) or inspect.ismodule(obj):
                    continue
                try:
                    params = inspect.signature(obj).parameters.values()
                except (TypeError, ValueError):
                    continue
                if any(p.name in FUNCTION_PARAMETERS or "Callable" in str(p.annotation) for p in params):
                    found.setdefault(id(obj), (f"{name}.{attr}", obj))
    return dict(found.values())


def test_every_public_form_that_takes_a_function_is_classified():
    forms = public_function_forms()
    assert "jax.jit" in forms and "jax.lax.scan" in forms  # the enumeration works at all
    unclassified = sorted(q for q in forms if q not in jax_forms.FORMS)
    assert not unclassified, (
        f"JAX has public callables taking a function that jitscope has not classified: {unclassified}; "
        "add each to jaxmodel/families/jax_forms.py (and a truth case if it compiles the user's program)")


def test_every_form_that_compiles_the_users_program_has_a_truth_case():
    from test_watch_truth import CASES  # tests/ is on sys.path under pytest

    compiling = {q for q, kind in jax_forms.FORMS.items() if kind in (jax_forms.JIT, jax_forms.PRIMITIVE,
                                                                        jax_forms.ROUTINE)}
    missing = sorted(q for q in compiling if q not in jax_forms.PROBED)
    assert not missing, missing
    assert set(jax_forms.PROBED.values()) <= set(CASES), set(jax_forms.PROBED.values()) - set(CASES)
    assert set(jax_forms.FORMS.values()) <= {jax_forms.JIT, jax_forms.WRAPPER, jax_forms.PRIMITIVE,
                                             jax_forms.ROUTINE, jax_forms.OP_BY_OP, jax_forms.NONE}
