"""A bug of one of jitscope's rules must not lose the file's other findings (nor the run): the walk goes on
without it, and one JS004 info per rule and file says which rule failed where. Found on a held-out library:
JS202 on a loop in a Flax ``compact`` method raised AttributeError and the whole run stopped with no JSON."""

from __future__ import annotations

import ast
import json

from jitscope.lint import lint_source
from jitscope.lint.registry import all_rules

SRC = """
import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    if x > 0:
        return x
    return -x
"""

CRASH = """
import flax.linen as nn
import jax.numpy as jnp


class Block(nn.Module):
    @nn.compact
    def __call__(self, xs):
        h = 0.0
        for i in range(len(xs)):
            h = h + jnp.tanh(xs[i])
        return h
"""


def test_a_failing_rule_becomes_one_js004_and_the_other_rules_findings_stand(monkeypatch):
    rule = all_rules()["JS101"]

    def broken(self, node, ctx):  # a rule with a bug: raises on every node it is given
        raise AttributeError("'Span' object has no attribute '_fields'")

    monkeypatch.setattr(all_rules()["JS104"], "check", broken)
    monkeypatch.setattr(all_rules()["JS104"], "nodes", (ast.If, ast.Return))
    found = lint_source(SRC, "mod.py")
    codes = sorted(f.code for f in found)
    assert codes == ["JS004", rule.code], found
    (err,) = [f for f in found if f.code == "JS004"]
    assert err.severity == "info" and "rule JS104 failed at line 8" in err.message and "AttributeError" in err.message


def test_the_held_out_crash_lints_and_the_run_writes_its_json(cli, tmp_path):
    (tmp_path / "layers.py").write_text(CRASH)
    (tmp_path / "ok.py").write_text(SRC)
    out = tmp_path / "out.json"
    res = cli("lint", "--no-config", "--exit-zero", "--json", str(out), str(tmp_path))
    assert res.returncode == 0, res.stderr
    data = json.loads(out.read_text())
    by_file = {(f["location"]["file"].rsplit("/", 1)[-1], f["code"], f["severity"]) for f in data["findings"]}
    assert ("ok.py", "JS101", "error") in by_file
    assert ("layers.py", "JS202", "info") in by_file  # `len(xs)` of a Flax input: how many trips is not known
    assert not [f for f in data["findings"] if f["code"] == "JS004"]
