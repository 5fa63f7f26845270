"""One voice (issue #24 item 5): lint, watch and inspect give the same fix for the same pitfall, from
the catalogue in ``jaxmodel/fixes.py``, and no command recommends what another then flags.

Found: lint told users to replace a trace-time ``print`` with ``jax.debug.print``; watch then (rightly)
reported that the host callback takes every call of the step off JAX's fast dispatch path (JW501).
"""

from __future__ import annotations

import json

from conftest import run_cli

from jitscope.analyze.side_effects import side_effect_findings
from jitscope.collect.trace_effects import EffectEvent
from jitscope.jaxmodel import fixes
from jitscope.lint import lint_source
from jitscope.lint.registry import all_rules

# lint rule -> (sample message arguments, the catalogue's advice its message ends with)
LINT = {
    "JS401": ({"fn": "print", "function": "step", "expr": "x"}, fixes.TRACE_PRINT.title),
    "JS402": ({"scope": "global", "var": "n", "function": "step"}, fixes.GLOBAL_ASSIGNMENT.title),
    "JS403": ({"expr": "h.append(x)", "owner": "global", "var": "h", "function": "step"},
              fixes.OUTER_MUTATION.title),
    "JS501": ({"var": "W", "line": 3, "size": "4.0 MiB"}, fixes.pass_as_argument("W").title),
    "JS502": ({"var": "W", "why": "rebound later"}, fixes.pass_as_argument("W", stale=True).title),
    "JS202": ({"what": "range(100)", "trips": "100 trips"}, fixes.ROLL_LOOP.title),
    "JS203": ({"wrapper": "jax.jit", "what": "a lambda"}, fixes.CREATE_ONCE.title),
    "JS204": ({"wrapper": "jax.jit", "what": "a lambda", "function": "f"}, fixes.CREATE_ONCE.title),
}


def test_lint_messages_end_with_the_catalogues_fix():
    for code, (args, title) in LINT.items():
        message = all_rules()[code].message.format(**args)
        assert message.endswith("; " + title), (code, message)
    assert fixes.TRACE_PRINT.title == fixes.TRACE_LOGGING.title  # JS401 covers print and logging in one message
    for rule in all_rules().values():
        assert "use jax.debug.print" not in rule.message, rule.code


def test_inspect_phrases_side_effects_and_captures_from_the_catalogue():
    events = [EffectEvent(kind, "f.py", 3, "step", detail)
              for kind, detail in (("print", "print"), ("logging", "logging.info"), ("container", "h.append"),
                                   ("global", "n"))]
    for f in side_effect_findings(events):
        advice = fixes.effect(f.details["kind"])
        assert (f.fix.title, f.fix.description) == (advice.title, advice.why)


def test_lint_and_watch_give_the_same_print_advice_and_it_keeps_the_fast_path(tmp_path):
    """The same step: lint's JS401 and watch's JW201 end in the same words, and they are not
    "use jax.debug.print", which watch reports as off the fast path (JW501) when it is followed."""
    step = ("import jax, jax.numpy as jnp\n"
            "@jax.jit\n"
            "def step(x):\n"
            "    {line}\n"
            "    return x * 0.5 + 1.0\n"
            "x = jnp.ones(3)\n"
            "for _ in range(50):\n"
            "    x = step(x)\n")
    printing = step.format(line="print('x =', x)")
    (lint,) = [f for f in lint_source(printing, "step.py") if f.code == "JS401"]
    prog = tmp_path / "step.py"
    prog.write_text(printing)
    out = tmp_path / "r.json"
    r = run_cli("watch", "-q", "--json", str(out), str(prog))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    (jw201,) = [f for f in data["findings"] if f["code"] == "JW201"]
    assert lint.message.endswith("; " + jw201["fix"]["title"]) and jw201["fix"]["title"] == fixes.TRACE_PRINT.title
    assert not [f for f in data["findings"] if f["code"] == "JW501"]
    # What the old advice led to: jax.debug.print in the step takes every call off the fast path.
    prog.write_text(step.format(line="jax.debug.print('x = {}', x)"))
    r = run_cli("watch", "-q", "--json", str(out), str(prog))
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert [f["code"] for f in data["findings"]] == ["JW501"]
    assert "jax.debug.print" in fixes.TRACE_PRINT.why and "JW501" in fixes.TRACE_PRINT.why
