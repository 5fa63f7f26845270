"""JS502 on trace-time bookkeeping: a global read while tracing only to name things, or a record the traced
function keeps itself, is what the program means (info); a global read into the graph's arithmetic is stale.

Each case runs under real ``jax.jit`` on CPU: the bookkeeping names the outputs as intended on the first call
and every cached call after it; the look-alike's later change is really ignored by the compiled program.
"""

from __future__ import annotations

import jax.numpy as jnp

from jitscope.lint import lint_source

SRC = '''import jax
import jax.numpy as jnp

_SCOPES = []
_COUNTS = {}
_SEEN = {"layers": 0}
_SCALES = [1.0]


def reset_counts():
    global _COUNTS
    _COUNTS = {}
    _SEEN["layers"] = 0


def record(out, name, val):
    prefix = "/".join(_SCOPES)
    if prefix:
        name = prefix + "/" + name
    if name in _COUNTS:
        _COUNTS[name] += 1
        name += "_%d" % _COUNTS[name]
    else:
        _COUNTS[name] = 0
    out[name] = val
    return out


@jax.jit
def model(x):
    out = {}
    _SCOPES.append("enc")
    record(out, "act", jnp.tanh(x))
    record(out, "act", jnp.sin(x))
    _SCOPES.pop()
    i = _SEEN["layers"]
    _SEEN["layers"] += 1
    out["layer%d" % i] = x * 2.0
    return out


def set_scale(s):
    _SCALES.append(s)


@jax.jit
def scaled(x):
    return x * _SCALES[-1]
'''


def _js502(src: str) -> dict[int, str]:
    return {f.location.line: f.severity for f in lint_source(src, "m.py") if f.code == "JS502"}


def test_trace_time_names_are_what_the_program_means_on_every_call():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    x = jnp.ones(3)
    for _ in range(3):  # the first call traces and records; the cached calls keep the recorded names
        assert sorted(ns["model"](x)) == ["enc/act", "enc/act_1", "layer0"]
    assert ns["_SCOPES"] == [] and ns["_COUNTS"] == {"enc/act": 1} and ns["_SEEN"] == {"layers": 1}


def test_a_global_read_into_the_graph_is_really_stale():
    ns: dict = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    assert float(ns["scaled"](jnp.float32(1.0))) == 1.0
    ns["set_scale"](3.0)
    assert float(ns["scaled"](jnp.float32(1.0))) == 1.0  # the change is ignored: the compiled 1.0 stays


def test_js502_on_bookkeeping_is_info_and_on_the_graph_value_a_warning():
    found = _js502(SRC)
    assert found[17] == "info"  # "/".join(_SCOPES): a name prefix
    assert found[22] == "info"  # "_%d" % _COUNTS[name]: a name suffix
    assert found[36] == "info"  # _SEEN["layers"] read by `model`, which keeps the record itself
    assert found[48] == "warning"  # x * _SCALES[-1]: a value baked into the graph


def test_js502_message_says_why_it_is_bookkeeping():
    msgs = {f.location.line: f.message for f in lint_source(SRC, "m.py") if f.code == "JS502"}
    assert "only to build a name" in msgs[17]
    assert "`model` itself keeps it while tracing" in msgs[36]
