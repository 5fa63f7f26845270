"""Findings whose cause spans lines are reported where the fix goes, the call related (issue #25 item 3).

* An eager ``lax.cond`` recompiling because the calling function builds its branch anew at each call: watch
  records where the bodies were defined (``ObservedEvent.built_at``); lint reports at the body the caller builds,
  with the call as ``details.related`` (SARIF ``relatedLocations``), and a static JS209 at the call moves there
  too (one finding). A body defined once outside the caller leaves the finding at the call.
* A parameter's dict default passed on to a static argument (``def scale(x, opts={}): return _scale(x, opts)``):
  static JS602 at the default, the call related; the run's error at the call marks that finding (error).
Real programs under real jax.jit (subprocesses: `jitscope watch --trace-evidence`, then `jitscope lint`).
"""

from __future__ import annotations

import json

from test_lint_evidence_events import _cli, _lint, _run

FRESH = '''\
import jax.numpy as jnp
from jax import lax


def step(x, flip):
    if flip:
        branch = lambda v: v * 2
    else:
        branch = lambda v: v + 1
    return lax.cond(x.sum() > 0, branch, lambda v: v, x)


x = jnp.ones(3)
for i in range(4):
    step(x, True)
'''
# the look-alike: the branches are built once, outside the caller; only the inline identity is fresh
ONCE = '''\
import jax.numpy as jnp
from jax import lax


def double(v):
    return v * 2


def step(x):
    return lax.cond(x.sum() > 0, double, lambda v: v, x)


x = jnp.ones(3)
for i in range(4):
    step(x)
'''

DEFAULT = '''\
import sys
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def _scale(x, opts):
    return x * len(opts)


def scale(x, opts={}):
    return _scale(x, opts)


try:
    scale(jnp.ones(3))
except ValueError as e:
    print("RESULT:", type(e).__name__)
    sys.exit(1)
'''
PASSED = DEFAULT.replace("opts={}", "opts=()")


def test_a_fresh_branch_is_reported_where_the_caller_builds_it(tmp_path):
    prog, ev = _run(tmp_path, "fresh", FRESH)
    (event,) = [e for e in json.loads(ev.read_text())["events"] if e["code"] == "JS209"]
    assert event["line"] == 10 and f"{prog}:7" in event["built_at"]
    # statically too: the local name given as the branch is bound to a lambda the function builds at each call
    (static,) = [f for f in _lint(prog, "--no-evidence") if f["code"] == "JS209"]
    assert static["location"]["line"] == 7 and [r["line"] for r in static["details"]["related"]] == [10]
    (f,) = [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] == "JS209"]
    assert f["location"]["line"] == 7  # the lambda the caller builds at each call: the fix's line
    assert [r["line"] for r in f["details"]["related"]] == [10]  # the eager call
    assert f["details"]["observed"] and "observed in the run" in f["message"]
    sarif = json.loads(_cli("lint", "--no-config", "--exit-zero", "--format", "sarif", "--evidence", str(ev),
                            str(prog), cwd=tmp_path).stdout)
    (res,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "JS209"]
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    assert res["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 10


def test_a_body_built_once_leaves_the_finding_at_the_call(tmp_path):
    prog, ev = _run(tmp_path, "once", ONCE)
    found = [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] == "JS209"]
    assert [f["location"]["line"] for f in found] == [10] and "related" not in found[0]["details"]


def test_a_dict_default_passed_to_a_static_argument_is_reported_at_the_default(tmp_path):
    prog, ev = _run(tmp_path, "default", DEFAULT)
    static = [f for f in _lint(prog, "--no-evidence") if f["code"] == "JS602"]
    assert [(f["location"]["line"], f["severity"]) for f in static] == [(13, "warning")]
    assert [r["line"] for r in static[0]["details"]["related"]] == [14]
    observed = [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] == "JS602"]
    assert [(f["location"]["line"], f["severity"]) for f in observed] == [(13, "error")]  # JAX raised at the call
    assert observed[0]["details"]["observed_event"]["error"] == "ValueError"
    # the look-alike: a hashable default (the program runs) is no finding
    prog, ev = _run(tmp_path, "passed", PASSED)
    assert not [f for f in _lint(prog, "--evidence", str(ev)) if f["code"] == "JS602"]
