"""load_result validates before it trusts, and every renderer survives whatever validation lets through.

The built-in validator (``jitscope.schema.check``) must agree with the ``jsonschema`` package on
every document, valid or mutated. Then a hypothesis mutator changes one field of a saved result of
each kind (wrong type, null, missing, extra, huge, nested) and runs it through ``load_result`` and
every renderer: each outcome is a rendering or a one-line ``UsageError``, never another exception.
A few hundred examples per kind by default; ``-m slow`` runs thousands.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schema_instances import instance

from jitscope.errors import UsageError
from jitscope.render import FORMATS, render
from jitscope.results import load_result
from jitscope.schema import validate
from jitscope.schema.check import MAX_DEPTH, first_problem

GOLD = Path(__file__).resolve().parent / "gold"
KINDS = ("compare", "demo", "watch", "inspect", "scale", "lint")
SEEDS = {k: [json.loads((GOLD / f"{k}.json").read_text()), instance(k, "text <b>&")] for k in KINDS}
VALUES = [None, "", "x", "<script>", 0, -1, 1.5, -2.5, 10**30, True, False, [], {}, [1, "a"], {"a": None},
          [[[[[]]]]]]


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


@st.composite
def mutated(draw, kind):
    doc = copy.deepcopy(draw(st.sampled_from(SEEDS[kind])))
    paths = [p for p in _paths(doc) if p and p[0] not in ("format_version", "kind")]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            action = draw(st.sampled_from(["replace", "replace", "delete", "extra"]))
            if action == "delete" and isinstance(parent, dict):
                parent.pop(path[-1], None)
            elif action == "extra" and isinstance(parent, dict):
                parent["surprise"] = copy.deepcopy(draw(st.sampled_from(VALUES)))
            else:
                parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(VALUES)))
        except (KeyError, IndexError, TypeError):
            pass  # an earlier mutation removed this path
    return doc


def _agree(doc):
    mine = first_problem(doc)
    try:
        validate(doc)
        theirs = None
    except jsonschema.ValidationError as e:
        theirs = e.message
    assert (mine is None) == (theirs is None), (mine, theirs)


@pytest.mark.parametrize("kind", KINDS)
def test_seeds_are_valid(kind):
    for doc in SEEDS[kind]:
        assert first_problem(doc) is None
        validate(doc)


def _run(kind, doc, tmp_path):
    _agree(doc)
    path = tmp_path / f"{kind}.json"
    path.write_text(json.dumps(doc))
    try:
        result = load_result(path)
    except UsageError as e:
        assert "\n" not in str(e) and str(e).startswith(str(path))
        return
    for fmt in FORMATS:
        try:
            render(result, fmt)
        except UsageError as e:
            assert fmt == "sarif" and kind != "lint", e


def _given(examples):
    return settings(max_examples=examples, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _fuzz(kind, tmp_path, examples):
    @_given(examples)
    @given(mutated(kind))
    def check(doc):
        _run(kind, doc, tmp_path)

    check()


@pytest.mark.parametrize("kind", KINDS)
def test_mutated_results_render_or_are_refused_in_one_line(kind, tmp_path):
    _fuzz(kind, tmp_path, 200)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_mutated_results_many(kind, tmp_path):
    _fuzz(kind, tmp_path, 3000)


def test_deep_nesting_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"format_version": 1, "kind": "lint", "paths": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(UsageError, match="deep.json: not a jitscope JSON result"):
        load_result(deep)
    doc = json.loads((GOLD / "lint.json").read_text())
    node = doc["findings"][0]["details"] = {}
    for _ in range(MAX_DEPTH + 5):
        node["x"] = {}
        node = node["x"]
    assert "nested more than" in first_problem(doc)


def test_unknown_schema_keywords_are_not_ignored():
    from jitscope.schema import check

    with pytest.raises(NotImplementedError, match="maxLength"):
        check._check("x", {"type": "string", "maxLength": 1}, "records", "", 0)


def test_messages_name_the_field(tmp_path):
    doc = json.loads((GOLD / "watch.json").read_text())
    doc["events"][1]["phases"]["compile"] = "slow"
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(UsageError) as e:
        load_result(path)
    assert str(e.value) == f"{path}: not a valid watch result: events[1].phases.compile: expected number, got the string 'slow'"


def test_nan_and_infinity_are_refused_even_in_free_form_fields(tmp_path):
    for token in ("NaN", "Infinity", "-Infinity", "1e999"):
        text = (GOLD / "lint.json").read_text().replace('"details": {', f'"details": {{"x": {token}, ', 1)
        path = tmp_path / "nan.json"
        path.write_text(text)
        with pytest.raises(UsageError, match="not a finite number"):
            load_result(path)


def test_loglog_ticks_survive_extreme_values():
    from jitscope.render.html.svg import loglog_chart

    svg = loglog_chart({"a": [(1.0, 1e-300), (2.0, 1e308)], "b": [(True, 1.0), ("x", 2.0)]})
    assert svg.count("chart-tick") <= 30


def test_true_is_not_the_integer_1_in_const_and_enum():
    # Python's True == 1; JSON's true is not 1 (found by the mutator: a compare inside a demo with
    # format_version: true passed the in-house validator and failed jsonschema)
    from jitscope.schema.check import _check

    for schema in ({"const": 1}, {"enum": [1, 2]}):
        assert _check(True, schema, "compare", "format_version", 0) is not None
        assert _check(1, schema, "compare", "format_version", 0) is None
        assert jsonschema.Draft202012Validator(schema).is_valid(True) is False
    assert _check(True, {"enum": [True, None]}, "compare", "x", 0) is None
