"""A warm-up script is code built from values (issue #23 item 1): a crafted run never gets its text run,
and an honest run whose static values print on several lines gives a script that parses and runs.

The crafted runs are an honest run's events file with one string field at a time replaced by a payload
that would run code if it were pasted into the script (a newline and a statement, a closing quote, a
docstring's closing quotes, a comment that eats the rest of a line, a terminal escape sequence). Every
string field of an event is tried, so a field added later is tried too.
"""

from __future__ import annotations

import ast
import copy
import io
import json
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from conftest import run_cli

MODEL = '''
import dataclasses
import functools

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Config:                               # hashable, equal by value, repr on several lines
    depth: int = 2
    name: str = "base"

    def __repr__(self):
        return f"Config(\\n    depth={self.depth},\\n    name={self.name!r},\\n)"


@functools.partial(jax.jit, static_argnames=("cfg", "shape", "n"))
def step(params, x, *, cfg, shape, n):
    return params["w"] * x + n


@functools.partial(jax.jit, static_argnames=("table",))
def lookup(x, table):                       # a static tuple literal with a newline in a string
    return x + len(table)
'''

PROG = '''
import jax.numpy as jnp
import model

x = jnp.ones(3)
model.step({"w": x}, x, cfg=model.Config(), shape=(3, 4), n=2)
model.step({"w": x}, x, cfg=model.Config(depth=3), shape=(1,), n=-1)
model.lookup(x, table=(("a", "multi\\nline"), ("b", (1.5, -0.0, 2j, None, b"\\x00"))))
print("program done")
'''

MARK = "PWNED"
PAYLOADS = [
    f"x\n__import__('pathlib').Path('{MARK}').touch()\n",
    f"x'); __import__('pathlib').Path('{MARK}').touch() #",
    f'x"""\n__import__(\'pathlib\').Path(\'{MARK}\').touch()\n"""',
    f"x)\n    import pathlib; pathlib.Path('{MARK}').touch()\n#",
    f"\x1b[2J\x1b]0;{MARK}\x07\r",
]


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    d = tmp_path_factory.mktemp("warm_safety")
    (d / "model.py").write_text(MODEL)
    (d / "prog.py").write_text(PROG)
    r = run_cli("watch", "-q", "--events", "run.jsonl", "prog.py", cwd=d)
    assert r.returncode == 0, r.stderr
    return d


def _python(d: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=d, capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})


def test_an_honest_run_with_multi_line_reprs_gives_a_script_that_parses_and_runs(honest):
    d = honest
    r = run_cli("warmup", "run.jsonl", "-o", "warm.py", cwd=d)
    assert r.returncode == 0, r.stderr
    text = (d / "warm.py").read_text()
    compile(text, "warm.py", "exec")
    # the config object (a frozen dataclass: compared by value) is rebuilt from its fields, whatever its repr
    assert "3 ahead-of-time compiles covering 3 of 3" in r.stdout, r.stdout
    p = _python(d, "warm.py")
    assert p.returncode == 0, p.stderr
    assert "warmup: compiled 3 of 3" in p.stderr


def _strings(obj, path=()):
    """Every (path, string) in a JSON value."""
    if isinstance(obj, str):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _strings(v, (*path, i))


def _put(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def _static_keys(obj):
    """Paths of the keys of each signature's ``static`` dict (a key is a string from the run too)."""
    sig = obj.get("signature") or {}
    return [k for k in (sig.get("static") or {})]


def _crafted(d: Path) -> list[tuple[str, list[str]]]:
    """(what was replaced, lines of an events file) for each string field x each payload."""
    lines = (d / "run.jsonl").read_text().splitlines()
    out = []
    for n, line in enumerate(lines):
        data = json.loads(line)
        if data.get("type") == "program":
            continue
        for path, _ in _strings(data):
            for k, payload in enumerate(PAYLOADS):
                bad = copy.deepcopy(data)
                _put(bad, path, payload)
                out.append((f"line {n} {'/'.join(map(str, path))} payload {k}",
                            lines[:n] + [json.dumps(bad)] + lines[n + 1:]))
        rebuild = data.get("rebuild")
        if isinstance(rebuild, str):  # the record is one JSON text: each string inside it, too
            inner = json.loads(rebuild)
            for path, _ in _strings(inner):
                for k, payload in enumerate(PAYLOADS):
                    bad_inner = copy.deepcopy(inner)
                    _put(bad_inner, path, payload)
                    bad = dict(data, rebuild=json.dumps(bad_inner))
                    out.append((f"line {n} rebuild {'/'.join(map(str, path))} payload {k}",
                                lines[:n] + [json.dumps(bad)] + lines[n + 1:]))
        for key in _static_keys(data):
            bad = copy.deepcopy(data)
            static = bad["signature"]["static"]
            static[PAYLOADS[0]] = static.pop(key)
            out.append((f"line {n} static key {key}", lines[:n] + [json.dumps(bad)] + lines[n + 1:]))
    return out


def _run_text_outside_constants(text: str) -> list[str]:
    """Where the payload's mark appears in the script other than inside a string constant: in a comment,
    a name, an attribute, or anywhere the tokenizer does not see one string."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if MARK in tok.string and tok.type != tokenize.STRING:
            found.append(f"{tokenize.tok_name[tok.type]} {tok.string!r}")
    for node in ast.walk(ast.parse(text)):
        name = getattr(node, "id", None) or getattr(node, "attr", None) or ""
        if MARK in str(name) or name == "__import__":
            found.append(f"{type(node).__name__} {name}")
    return found


def test_no_string_of_a_crafted_run_reaches_the_script_as_code(honest):
    from jitscope.analyze.warmup_plan import plan
    from jitscope.render.warmup_script import render
    from jitscope.results.watch_run import load_run

    d = honest
    cases = _crafted(d)
    assert len(cases) > 50  # every string field of every event, each payload
    for what, lines in cases:
        f = d / "crafted.jsonl"
        f.write_text("\n".join(lines) + "\n")
        try:
            _, events = load_run(f)
        except Exception:  # noqa: BLE001 - a line the reader refuses never reaches the script
            continue
        text = render(plan(events), str(d / "w.py"), source=PAYLOADS[0])
        compile(text, "w.py", "exec")
        assert _run_text_outside_constants(text) == [], what


def test_a_crafted_run_through_the_cli_never_runs_its_code(honest, tmp_path):
    d = honest
    lines = (d / "run.jsonl").read_text().splitlines()
    crafted = []
    for line in lines:
        data = json.loads(line)
        if "signature" in data:  # a compile event (not the run header or a program line)
            sig = data["signature"]
            for key in sig["static"]:  # both a pasted comment and a pasted static value would run
                sig["static"][key] = PAYLOADS[0]
            data["function"] = data["function"] + PAYLOADS[4]
        crafted.append(json.dumps(data))
    run = tmp_path / f"run{PAYLOADS[2][:5]}.jsonl".replace("\n", "_")
    run.write_text("\n".join(crafted) + "\n")
    r = run_cli("warmup", str(run), "-o", str(tmp_path / "w.py"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout + r.stderr  # escape sequences from the run are shown escaped
    p = _python(tmp_path, "w.py")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stderr
    assert not (tmp_path / MARK).exists() and not (d / MARK).exists()


@pytest.mark.parametrize("text,ok", [
    ("3", True), ("(3,\n 4)", True), ("{'a': 'x\\ny'}", True), ("-0.0", True), ("2j", True),
    ("b'\\x00'", True), ("set()", True), ("None", True),
    ("Config(\n    depth=2,\n)", False), ("np.int32(3)", False), ("float('nan')", False),
    ("1e999", False), ("__import__('os')", False), ("3\nimport os", False), ("[" * 200 + "]" * 200, False),
])
def test_a_static_value_is_rebuilt_only_from_a_round_trippable_literal(text, ok):
    from jitscope.analyze.warmup_values import NotRebuildable, literal_value
    from jitscope.render.warmup_script import literal_text

    if not ok:
        with pytest.raises(NotRebuildable):
            literal_value(text)
        return
    value = literal_value(text)
    code = literal_text(value)
    assert "\n" not in code and ast.literal_eval(code) == value


# -- what a crafted record can make the warm-up do at run time: read names, build value objects, compile --------
SENTRY = '''
import os


class Closer:                               # a __del__ over its own state: what pickle exploits
    def __init__(self, path):
        self.path = path

    def __eq__(self, other):
        return isinstance(other, Closer) and other.path == self.path

    def __hash__(self):
        return hash(self.path)

    def __del__(self):
        if getattr(self, "path", None):
            open(self.path, "w").close()


class Handle:                               # compared by identity
    def __init__(self, path):
        self.path = path
'''


def _crafted_entry(d: Path, module: str, path: tuple, args: tuple, context=None) -> dict:
    return {"module": module, "path": path, "function": "f", "file": str(d / "x.py"), "root": str(d),
            "x64": False, "signature": "", "args": args, "kwargs": {}, "context": context}


@pytest.mark.parametrize("case", ["jitted_is_os_system", "object_with_del", "object_by_identity", "context",
                                  "builtin_called"])
def test_a_crafted_record_never_makes_the_runtime_call_what_it_names(tmp_path, monkeypatch, case):
    """The runtime reads names and builds value objects; it never calls what a record names (a path that is not
    a jitted function is skipped; a class with a ``__del__`` or compared by identity is refused; a context
    that is not jitscope's is refused), so nothing of the record's choosing runs."""
    from jitscope import _warmup_runtime as runtime

    (tmp_path / "sentry_mod.py").write_text(SENTRY)
    monkeypatch.syspath_prepend(str(tmp_path))
    mark = tmp_path / MARK
    arg = ("literal", str(mark))
    entry = {
        "jitted_is_os_system": _crafted_entry(tmp_path, "os", ("system",), (arg,)),
        "object_with_del": _crafted_entry(tmp_path, "jax", ("jit",), (
            ("object", ("ref", "sentry_mod", "Closer", 0), (("path", arg),)),)),
        "object_by_identity": _crafted_entry(tmp_path, "jax", ("jit",), (
            ("object", ("ref", "sentry_mod", "Handle", 0), (("path", arg),)),)),
        "context": _crafted_entry(tmp_path, "sentry_mod", ("Closer", "__init__"), (),
                                  context="builtins.exec"),
        "builtin_called": _crafted_entry(tmp_path, "builtins", ("exec",), (arg,)),
    }[case]
    counts = runtime.warmup(calls=[entry], threads=1, verbose=False, contexts=())
    assert counts["compiled"] == 0 and counts["skipped"] + counts["failed"] == 1
    import gc

    gc.collect()
    assert not mark.exists()


def test_the_plan_refuses_a_context_jitscope_does_not_know(tmp_path):
    import dataclasses

    from jitscope.analyze.warmup_plan import plan
    from jitscope.model import CompileEvent

    record = {"module": "m", "path": ["a", "b"], "file": str(tmp_path / "m.py"), "args": [], "kwargs": {},
              "context": "os.system"}
    e = dataclasses.replace(CompileEvent("f"), rebuild=json.dumps(record))
    (skipped,) = plan([e]).skipped
    assert "not one jitscope knows" in skipped.reason
