"""#24 item 2: library-aware attribution, against real JAX and the real libraries.

* Call sites are the program's frames for any installed package that jits on its behalf (a rule about
  where code lives, not a list of libraries); the library's frame is kept as ``library_site``.
* Reasons through wrappers name the real cause: a static field or a shape under ``equinox.filter_pmap``
  and a re-applied ``filter_jit`` (not "new function object"), a flax graph change node by node (no
  garbled text, no false "argument left out"), other ``donate_argnums``, ``None`` -> a value, a
  backward program recompiled for a new static value.
* JAX's explanation text is stored only with the function it is about.

equinox, numpyro and diffrax are in the test extras (pure Python); flax is not: its test skips where
flax is not importable.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import textwrap

import pytest
from jax import monitoring

from jitscope import _jaxcompat
from jitscope._watch import watch_program
from jitscope.analyze.duplicates import _ABSENT  # the "argument left out" cause of JW403

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"


def _run(tmp_path, text: str, name: str = "prog.py", explain: bool = False):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    truth: collections.Counter[str] = collections.Counter()

    def span(event, start, end, **kw):  # type: ignore[no-untyped-def]
        if event == BACKEND_COMPILE:
            truth[str(kw.get("fun_name"))] += 1

    monitoring.register_event_time_span_listener(span)
    try:
        result = watch_program(str(path), [], explain=explain)
    finally:
        _jaxcompat.unregister_listener("span", span)
    assert result.exit_code == 0, result.crash
    return str(path), result, truth


# --- call sites: the program's frames, wherever the library lives -------------------------------

_FAKE_LIBRARY = '''\
import jax
import jax.numpy as jnp


def _step(x):
    return jnp.sin(x) * 2


def run(x):
    return jax.jit(_step)(x)  # a library that jits on its caller's behalf
'''


def _install(root, text: str = _FAKE_LIBRARY):
    site = root / "lib" / "site-packages"
    (site / "fakelib").mkdir(parents=True)
    (site / "fakelib" / "__init__.py").write_text(text)
    return site


def test_call_site_is_the_programs_line_when_an_installed_library_jits(tmp_path, monkeypatch):
    site = _install(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    path, result, truth = _run(tmp_path, '''\
        import jax.numpy as jnp
        import fakelib

        fakelib.run(jnp.ones(3))
        fakelib.run(jnp.ones(4))
        ''')
    assert len(result.events) == truth["jit(_step)"] == 2  # still counted: the program made it compile
    for e, line in zip(result.events, (4, 5), strict=True):
        assert (e.call_site.file, e.call_site.line) == (path, line)
        assert e.library_site.file.endswith(os.path.join("site-packages", "fakelib", "__init__.py"))
        assert e.library_site.line == 10 and e.library_site.function == "run"
        assert e.definition.file == e.library_site.file  # the function is the library's own
    assert result.events[1].reason.category == "shape_change"
    assert result.events[1].to_dict()["library_site"]["line"] == 10


def test_a_program_living_in_site_packages_is_the_program(tmp_path):
    """``watch`` of a script (or a test suite) installed inside site-packages: that package's frames are
    the program's own, so its lines are call sites and nothing is a library site."""
    site = _install(tmp_path)
    script = site / "fakelib" / "main.py"
    script.write_text("import jax.numpy as jnp\nimport fakelib\n\nfakelib.run(jnp.ones(3))\n")
    out = tmp_path / "run.json"
    env = {**os.environ, "PYTHONPATH": str(site), "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, "-m", "jitscope", "watch", "-q", "--json", str(out), str(script)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import json

    (event,) = json.loads(out.read_text())["events"]
    assert event["call_site"]["file"].endswith("__init__.py") and event["call_site"]["line"] == 10
    assert "library_site" not in event


def test_is_library_file_rule():
    from jitscope._jaxcompat import add_program_path, is_library_file, is_program_file

    site = os.path.join(os.sep, "venv", "lib", "python3.11", "site-packages")
    assert is_library_file(os.path.join(site, "numpyro", "infer", "svi.py"))
    assert is_library_file(os.path.join(os.sep, "usr", "lib", "python3", "dist-packages", "x", "y.py"))
    assert is_library_file(os.__file__)  # the standard library
    assert not is_library_file(os.path.join(os.sep, "home", "me", "checkout", "tests", "test_svi.py"))
    assert is_program_file("<stdin>") and not is_library_file("<ipython-input-1>")
    add_program_path(os.path.join(site, "mylib_tests_xyz", "test_a.py"))  # pytest --pyargs: tests installed
    assert not is_library_file(os.path.join(site, "mylib_tests_xyz", "sub", "test_b.py"))
    assert is_library_file(os.path.join(site, "numpyro", "infer", "svi.py"))


def test_numpyro_svi_run_and_diffrax_are_attributed_to_the_programs_line(tmp_path):
    pytest.importorskip("numpyro")
    pytest.importorskip("diffrax")
    path, result, truth = _run(tmp_path, '''\
        import diffrax
        import jax
        import jax.numpy as jnp
        import numpyro
        import numpyro.distributions as dist
        from numpyro.infer import SVI, Trace_ELBO
        from numpyro.infer.autoguide import AutoDelta


        def model(x):
            mu = numpyro.sample("mu", dist.Normal(0.0, 1.0))
            numpyro.sample("obs", dist.Normal(mu, 1.0), obs=x)


        svi = SVI(model, AutoDelta(model), numpyro.optim.Adam(0.1), Trace_ELBO())
        svi.run(jax.random.PRNGKey(0), 3, jnp.ones(5), progress_bar=False)
        diffrax.diffeqsolve(diffrax.ODETerm(lambda t, y, a: -y), diffrax.Euler(), 0.0, 1.0, 0.5, jnp.ones(2))
        ''')
    by_line = {e.call_site.line for e in result.events}
    assert by_line <= {16, 17}, [(e.function, e.call_site) for e in result.events]
    assert all(e.call_site.file == path for e in result.events)
    svi = [e for e in result.events if e.call_site.line == 16]
    assert svi and all(e.library_site is not None and "numpyro" in e.library_site.file for e in svi)


# --- reasons through wrappers --------------------------------------------------------------------

def test_equinox_filter_pmap_and_reapplied_filter_jit_name_the_static_field_or_the_shape(tmp_path):
    pytest.importorskip("equinox")
    path, result, truth = _run(tmp_path, '''\
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        class M(eqx.Module):
            w: jax.Array
            act: str = eqx.field(static=True)

            def __call__(self, x):
                return self.w * x if self.act == "lin" else jnp.tanh(self.w * x)


        def loss(m, x):
            return m(x).sum()


        f = eqx.filter_pmap(loss)
        f(M(jnp.ones((1, 3)), "lin"), jnp.ones((1, 3)))
        f(M(jnp.ones((1, 3)), "tanh"), jnp.ones((1, 3)))
        f(M(jnp.ones((1, 4)), "tanh"), jnp.ones((1, 4)))
        for n, act in ((3, "lin"), (3, "tanh"), (4, "lin")):
            m = M(jnp.ones(n), act)
            eqx.filter_jit(m)(jnp.ones(n))  # filter_jit applied again each time, to a module
        ''')
    pm = [e for e in result.events if e.function == "loss"]
    assert len(pm) == 3
    assert {(e.definition.file, e.definition.line) for e in pm} == {(path, 14)}  # the user's loss
    assert [e.reason.category for e in pm] == ["first_compile", "pytree_change", "shape_change"]
    assert pm[1].reason.detail == "m (M): static data 'lin' -> 'tanh'"
    assert pm[2].reason.detail.startswith("m.w: f32[1,3] -> f32[1,4]")
    jit = [e for e in result.events if e.function == "M"]  # the module called, keyed on its fields as `self`
    assert len(jit) == 3 == truth["jit(M)"]
    assert [e.reason.category for e in jit] == ["first_compile", "pytree_change", "shape_change"]
    assert jit[1].reason.detail == "self (M): static data 'lin' -> 'tanh'"
    assert "new function object" not in " ".join(e.reason.detail for e in result.events)


def test_flax_nnx_graph_change_is_one_clean_line_and_no_argument_left_out(tmp_path):
    pytest.importorskip("flax.nnx")
    from jitscope.analyze.reasons import signature_diffs

    path, result, truth = _run(tmp_path, '''\
        import jax.numpy as jnp
        from flax import nnx


        class Block(nnx.Module):
            def __init__(self, rngs):
                self.lin = nnx.Linear(3, 3, rngs=rngs)
                self.extra = nnx.data(None)

            def __call__(self, x):
                y = self.lin(x)
                return y if self.extra is None else self.extra(y)


        @nnx.jit
        def step(model, x):
            return model(x).sum()


        m = Block(nnx.Rngs(0))
        step(m, jnp.ones(3))
        m.extra = nnx.Linear(3, 3, rngs=nnx.Rngs(1))  # a new submodule: the graph changed
        step(m, jnp.ones(3))
        ''')
    e0, e1 = result.events
    assert e1.reason.category == "pytree_change"
    assert "\n" not in e1.reason.detail and "(absent)" not in e1.reason.detail
    assert e1.reason.detail.startswith("model._graphdef (GraphDef): static data ")
    assert "model.states[0] (list): [2] -> [4] children" in e1.reason.detail
    assert len(e1.signature.treedef.splitlines()) == 2  # one line per argument however flax prints
    assert _ABSENT[0] not in str(signature_diffs(e0.signature, e1.signature))


def test_other_donation_none_to_a_value_and_a_backward_program_name_their_cause(tmp_path):
    path, result, truth = _run(tmp_path, '''\
        import jax
        import jax.numpy as jnp


        def f(x):
            return jnp.sin(x).sum()


        def g(x, n=None):
            return x * (1 if n is None else n)


        def h(x, n):
            return (jnp.sin(x) * n).sum()


        jax.jit(f)(jnp.ones(3))
        jax.jit(f, donate_argnums=0)(jnp.ones(3))
        gj = jax.jit(g, static_argnums=1)
        gj(jnp.ones(3), None)
        gj(jnp.ones(3), 2)
        hj = jax.jit(h, static_argnums=1)
        jax.grad(hj)(jnp.ones(3), 2)
        jax.grad(hj)(jnp.ones(3), 3)
        ''')
    reasons = [(e.function, e.transform, e.reason.category, e.reason.detail) for e in result.events]
    f1 = reasons[1]
    assert f1[2] == "other" and "donate_argnums: (none) -> (0,)" in f1[3] and "evicted" not in f1[3]
    assert reasons[3][2:] == ("static_value_change", "n: None -> 2")
    assert reasons[6:] == [("h", "grad", "static_value_change", "n: 2 -> 3"),
                           ("h", "backward", "static_value_change", "n: 2 -> 3")]


def test_fix_texts_use_the_wrappers_own_options(tmp_path):
    pytest.importorskip("equinox")
    path, result, truth = _run(tmp_path, '''\
        import equinox as eqx
        import jax.numpy as jnp


        @eqx.filter_jit
        def step(x, n):
            return x * n


        for n in range(4):
            step(jnp.ones(3), n)  # a Python int is static under filter_jit: one compile per value
        ''')
    assert [e.reason.category for e in result.events][1:] == ["static_value_change"] * 3
    text = " ".join(f"{f.title} {f.description}" for f in result.fixes)
    assert "static_argnums" not in text and "static_argnames" not in text
    assert "jnp.asarray(n)" in text


# --- JAX's explanation belongs to its function -----------------------------------------------------

def test_explanation_text_is_stored_only_with_the_function_it_names(tmp_path):
    pytest.importorskip("equinox")
    from jitscope.collect.monitoring import _explained_function

    path, result, truth = _run(tmp_path, '''\
        import equinox as eqx
        import jax
        import jax.numpy as jnp


        def body(x):
            return jnp.sin(x) * 2


        def outer(x):
            return jax.checkpoint(body)(x).sum()  # checkpoint traces body again after outer's trace


        jax.pmap(outer)(jnp.ones((1, 3)))
        jax.pmap(outer)(jnp.ones((1, 4)))


        @eqx.filter_jit
        def e(x):
            return jax.lax.scan(lambda c, y: (c + y, y), 0.0, x)[0]


        e(jnp.ones(3))
        e(jnp.ones(6))
        ''', explain=True)
    explained = [e for e in result.events if e.reason.explanation]
    assert explained  # JAX explained some of them
    for e in explained:
        name, file, line = _explained_function(e.reason.explanation)
        assert name == e.function.rsplit(".", 1)[-1], (e.function, e.reason.explanation)


def test_diffrax_under_vmap_is_named_as_written_with_its_static_change(tmp_path):
    """JAX times no trace under an outer transformation, and diffrax runs other jitted calls before the
    batched program compiles: that program is still diffrax's ``diffeqsolve`` at the program's line,
    and the second one a static value change (``saveat``), not a first compile of "vmap #2"."""
    pytest.importorskip("diffrax")
    path, result, truth = _run(tmp_path, '''\
        import diffrax
        import jax
        import jax.numpy as jnp


        def f(t, y, args):
            return -y


        for saveat in (diffrax.SaveAt(t0=True), diffrax.SaveAt(t1=True)):
            jax.vmap(lambda y0: diffrax.diffeqsolve(diffrax.ODETerm(f), diffrax.Heun(), 0.0, 1.0, 0.1, y0,
                                                    saveat=saveat))(jnp.ones((4, 2)))
        ''')
    events = [e for e in result.events if e.function == "diffeqsolve"]
    assert len(events) == truth["jit(diffeqsolve)"] == 2
    assert all(e.definition.file.endswith(os.path.join("diffrax", "_integrate.py")) for e in events)
    assert all((e.call_site.file, e.call_site.line) == (path, 11) for e in events)
    assert [e.transform for e in events] == ["vmap", "vmap"]
    assert events[1].reason.category == "static_value_change" and "saveat" in events[1].reason.detail
