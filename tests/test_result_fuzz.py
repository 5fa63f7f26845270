"""Mutated result files through every renderer (#9 items 4 and 7): output or one line, never a traceback.

Hypothesis starts from each kind's saved sample (``tests/gold/<kind>.json``) and mutates it: values
replaced by other values of the same JSON type (edge numbers, odd text, empty lists) or of another
type, fields deleted or added, lists emptied or repeated, values nested deeply. Each mutated file
goes through ``jitscope report -f FMT`` for every format, in process: the outcome is either exit 0
with output, or exit 2 with exactly one ``jitscope:`` line on stderr. Anything else (an exception
escaping ``main``) fails the test, with the smallest file that does it.

A few hundred examples per kind run by default; ``pytest -m slow tests/test_result_fuzz.py`` runs
thousands.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jitscope.cli import main

GOLD = Path(__file__).resolve().parent / "gold"
KINDS = ("compare", "demo", "watch", "inspect", "scale", "lint")
FORMATS = ("console", "html", "json", "sarif")

numbers = st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([0, -1, 1, 2**63, -(2**63), 10**400]),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from([0.0, -0.0, 1e-320, 1e308, -1e308, 0.5]))
texts = st.one_of(st.text(max_size=30), st.sampled_from(["", "\n", "\x00", "a\nb", "%s{}", "ok", "error",
                                                         "trace_error", "<b>", "é" * 50, "🙂"]))
leaves = st.one_of(st.none(), st.booleans(), numbers, texts)
values = st.recursive(leaves, lambda kids: st.one_of(st.lists(kids, max_size=3),
                                                     st.dictionaries(texts, kids, max_size=3)), max_leaves=8)


def _paths(root: Any) -> list[tuple]:
    out, stack = [], [((), root)]
    while stack:  # iterative: a mutant may already nest thousands deep
        path, node = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in enumerate(node))
    return out


def _get(node: Any, path: tuple) -> Any:
    for p in path:
        node = node[p]
    return node


def _same_type(draw, old: Any) -> Any:
    if isinstance(old, bool):
        return draw(st.booleans())
    if isinstance(old, (int, float)):
        return draw(numbers)
    if isinstance(old, str):
        return draw(texts)
    if isinstance(old, list):
        return draw(st.sampled_from([[], old * 3, old[:1], list(reversed(old))]))
    if isinstance(old, dict):
        return draw(st.sampled_from([{}, old]))
    return draw(values)


@st.composite
def mutated(draw, data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        path = draw(st.sampled_from(paths))
        parent, key = _get(data, path[:-1]), path[-1]
        old = parent[key]
        op = draw(st.sampled_from(["same", "same", "same", "other", "null", "delete", "add", "deep"]))
        if op == "same":
            parent[key] = _same_type(draw, old)
        elif op == "other":
            parent[key] = draw(values)
        elif op == "null":
            parent[key] = None
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(old, dict):
            old[draw(texts)] = draw(values)
        elif op == "add" and isinstance(old, list):
            old.append(draw(values) if not old or draw(st.booleans()) else copy.deepcopy(old[0]))
        elif op == "deep":
            nested: Any = old
            for _ in range(draw(st.sampled_from([5, 70, 3000]))):
                nested = [nested]
            parent[key] = nested
            break  # the last mutation: the others would walk thousands of levels
    return data


def report(path: Path, fmt: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["report", str(path), "-f", fmt])
    return code, out.getvalue(), err.getvalue()


def check_file(data: dict[str, Any], path: Path) -> None:
    try:
        text = json.dumps(data)
    except (RecursionError, ValueError):
        return  # not writable as JSON: nothing to load
    path.write_text(text, encoding="utf-8")
    for fmt in FORMATS:
        code, out, err = report(path, fmt)
        if code == 0:
            assert out, fmt
        else:
            lines = err.splitlines()
            assert code == 2 and len(lines) == 1 and lines[0].startswith("jitscope: "), (fmt, code, err[-2000:])


def _run(kind: str, tmp_path: Path, examples: int) -> None:
    data = json.loads((GOLD / f"{kind}.json").read_text(encoding="utf-8"))

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(mutated(data))
    def prop(mutant):
        check_file(mutant, tmp_path / f"{kind}.json")

    prop()


@pytest.mark.parametrize("kind", KINDS)
def test_mutated_results_render_or_one_line(kind, tmp_path):
    _run(kind, tmp_path, 200)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_mutated_results_many(kind, tmp_path, request):
    if "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("thousands of examples: run with -m slow")
    _run(kind, tmp_path, 3000)


def test_deeply_nested_json_is_one_line(tmp_path):
    for text in ("[" * 100_000 + "]" * 100_000,
                 '{"format_version": 1, "kind": "lint", "env": ' + "[" * 200 + "]" * 200 + "}"):
        path = tmp_path / "deep.json"
        path.write_text(text, encoding="utf-8")
        code, _, err = report(path, "console")
        assert code == 2 and err.count("\n") == 1 and err.startswith(f"jitscope: {path}: "), err


def test_bad_field_is_named(tmp_path):
    data = json.loads((GOLD / "inspect.json").read_text(encoding="utf-8"))
    data["jaxpr"]["constants"] = "<script>"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = report(path, "html")
    assert (code, out) == (2, "")
    assert err == f"jitscope: {path}: not a valid inspect result: jaxpr.constants: expected integer, got string\n"


@pytest.mark.parametrize("kind", KINDS)
def test_runtime_check_agrees_with_jsonschema(kind):
    """The small runtime validator accepts exactly what jsonschema accepts, given its three rules of its
    own: nesting depth, integers within 64 bits, and "integer" meaning a JSON number written without a
    fraction (``2.0`` is a number, as Python's json reads it; jsonschema would take it as an integer)."""
    import jsonschema
    from referencing import Registry

    from jitscope.schema import BASE_URI, load_schema, schema_names
    from jitscope.schema.check import MAX_DEPTH, Invalid, check, depth

    base = jsonschema.Draft202012Validator
    strict = jsonschema.validators.extend(base, type_checker=base.TYPE_CHECKER.redefine(
        "integer", lambda _, v: isinstance(v, int) and not isinstance(v, bool)))
    from referencing.jsonschema import DRAFT202012

    def doc(name):  # without "$schema", so $refs into other files keep the strict integer too
        return {k: v for k, v in load_schema(name).items() if k != "$schema"}

    registry = Registry().with_resources(
        (BASE_URI + f"{n}.schema.json", DRAFT202012.create_resource(doc(n))) for n in schema_names())
    reference_validator = strict(doc(kind), registry=registry)

    data = json.loads((GOLD / f"{kind}.json").read_text(encoding="utf-8"))
    seen = {True: 0, False: 0}

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(mutated(data))
    def prop(mutant):
        if depth(mutant) > MAX_DEPTH or any(isinstance(v, int) and abs(v) >= 2**63 for v in _leaves(mutant)):
            return  # the runtime check's own rules; jsonschema has neither
        reference = reference_validator.is_valid(mutant)
        try:
            check(mutant, kind)
            ours = True
        except Invalid:
            ours = False
        assert ours == reference
        seen[ours] += 1

    prop()
    assert seen[True] and seen[False], seen  # both outcomes happened: the comparison meant something


def _leaves(root: Any) -> list[Any]:
    return [_get(root, p) for p in _paths(root)]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_are_refused(literal, tmp_path):
    text = (GOLD / "scale.json").read_text(encoding="utf-8")
    data = json.loads(text)
    data["points"][0]["timings"]["compile"]["median"] = 12345.678
    path = tmp_path / "nan.json"
    path.write_text(json.dumps(data).replace("12345.678", literal), encoding="utf-8")
    code, _, err = report(path, "html")
    assert code == 2 and err.count("\n") == 1 and "not a finite number" in err, err


def test_huge_column_renders_small(tmp_path):
    """A 2**62 column (valid per the schema) once made the console caret allocate gigabytes."""
    data = json.loads((GOLD / "lint.json").read_text(encoding="utf-8"))
    data["findings"][0]["location"]["column"] = 2**62
    path = tmp_path / "col.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for fmt in FORMATS:
        code, out, err = report(path, fmt)
        assert code == 0 and len(out) < 100_000, (fmt, err)
