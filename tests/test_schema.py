"""Every schema file is valid JSON Schema, refs resolve, and real results of every kind validate strictly."""

from __future__ import annotations

import copy
import json

import jax
import jax.numpy as jnp
import jsonschema
import pytest

import jitscope
from jitscope.results import load_result
from jitscope.schema import load_schema, schema_names, validate


def test_every_schema_is_valid_draft_2020_12():
    names = schema_names()
    assert "records" in names
    for name in names:
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def _tiny(x, n=2):
    return jnp.sin(x) * n + sum(x)  # builtin sum: bloat the inspect result can report


def _make(n):
    return jnp.tanh, (jnp.ones(n, jnp.float32),)


def _real_results(tmp_path):
    """One real result of every kind, small and fast (real jit on CPU, real files)."""
    from jitscope.results.demo import CaseStudy, Column

    x = jnp.linspace(0.0, 1.0, 32, dtype=jnp.float32)  # 32: bloat on every JAX (0.11 unrolls sum as 1 add per element)
    cmp = jitscope.compare({"eager": _tiny, "jit": jax.jit(_tiny)}, (x,), calls=10, sample_seconds=0.01,
                           min_samples=1)
    steady = {v.name: v.steady.median for v in cmp.variants}
    case = CaseStudy(name="tiny", title="tiny compare", lesson=f"jit steady {steady['jit']:.3g} s", compare=cmp,
                     columns=[Column("variant", "variant", ""), Column("steady", "steady", "s")],
                     rows=[{"variant": k, "steady": v} for k, v in steady.items()], facts=steady, seconds=0.1)
    demo = jitscope.DemoResult(cases=[case], quick=True, seconds=0.1, env=cmp.env)
    with jitscope.watch(print_summary=False) as w:
        f = jax.jit(_tiny)
        f(x)
        f(jnp.ones(8, jnp.float32))  # a recompile with a reason
    src = tmp_path / "lintme.py"
    src.write_text("import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n", encoding="utf-8")
    lint = jitscope.lint([str(src)], config=False, jobs=1)
    w.result().save(tmp_path / "run_a.json")
    with jitscope.watch(print_summary=False) as w2:
        jax.jit(_tiny)(x)
    w2.result().save(tmp_path / "run_b.json")
    run_diff = jitscope.diff(tmp_path / "run_a.json", tmp_path / "run_b.json", fail_on=["new-compiles"])
    job = tmp_path / "job"  # two runs as two processes of a jax.distributed job (tests/test_multiproc.py runs real ones)
    for i, run in enumerate((w.result(), w2.result())):
        run.process_index, run.process_count = i, 2
        run.save(job / f"run.p{i}.json")
    return {
        "merge": jitscope.merge(job),
        "diff": run_diff,
        "compare": cmp,
        "demo": demo,
        "watch": w.result(),
        "inspect": jitscope.inspect(_tiny, x, sample_seconds=0.01),
        "scale": jitscope.scale(_make, [4, 8], sample_seconds=0.01),
        "lint": lint,
    }


def test_real_results_of_every_kind_validate_strictly_and_round_trip(tmp_path):
    results = _real_results(tmp_path)
    assert set(results) >= set(schema_names()) - {"records"}
    assert results["lint"].findings and results["watch"].events and results["inspect"].bloat
    for kind, result in results.items():
        data = result.to_dict()
        assert data["kind"] == kind
        validate(data)  # additionalProperties: false everywhere, so any unknown field fails here
        path = tmp_path / f"{kind}.json"
        result.save(path)
        loaded = load_result(path)
        assert type(loaded) is type(result)
        assert loaded.to_dict() == json.loads(result.to_json()), kind


def test_schemas_reject_unknown_fields(tmp_path):
    x = jnp.ones(4, jnp.float32)
    data = jitscope.compare({"eager": jnp.sin, "jit": jax.jit(jnp.sin)}, (x,), sample_seconds=0.01,
                            min_samples=1).to_dict()
    validate(data)
    for mutate in (lambda d: d.update(surprise=1), lambda d: d["variants"][0].update(surprise=1),
                   lambda d: d["env"].update(surprise=1)):
        bad = copy.deepcopy(data)
        mutate(bad)
        with pytest.raises(jsonschema.ValidationError, match="surprise"):
            validate(bad)


def test_every_record_object_is_strict():
    """Every object schema that lists properties forbids others (except free-form dicts)."""
    loose = []

    def walk(node, where):
        if isinstance(node, dict):
            if "properties" in node and "additionalProperties" not in node and "/allOf/" not in where:
                loose.append(where)
            for k, v in node.items():
                walk(v, f"{where}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}/{i}")

    for name in schema_names():
        walk(load_schema(name), name)
    assert loose == ["records/$defs/ResultHeader"]


def test_every_record_dataclass_matches_its_schema_exactly():
    """Field drift: each Record's fields are exactly the properties of its schema definition."""
    import dataclasses
    import importlib

    from jitscope._serde import Record
    from jitscope.results import _base

    for mod in ("model", "analyze.compare", "analyze.numerics", "analyze.jaxpr_stats", "analyze.hlo",
                "analyze.bloat", "analyze.scaling"):
        importlib.import_module(f"jitscope.{mod}")
    _base._import_all()
    defs = {}
    for name in schema_names():
        doc = load_schema(name)
        defs[name] = doc
        for key, value in doc.get("$defs", {}).items():
            defs.setdefault(key, value)
    todo, checked = list(Record.__subclasses__()), 0
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if not dataclasses.is_dataclass(cls):
            continue
        is_result = issubclass(cls, _base.Result)
        schema = defs[cls.kind if is_result else cls.__name__]
        fields = {f.name for f in dataclasses.fields(cls)} | ({"format_version", "kind"} if is_result else set())
        assert set(schema["properties"]) == fields, cls.__name__
        assert schema["additionalProperties"] is False, cls.__name__
        checked += 1
    assert checked >= 25


def _json_types_of_annotation(tp) -> set[str] | None:
    """The JSON types a value of Python type ``tp`` serialises to (None: anything)."""
    import dataclasses
    import types
    import typing

    origin = typing.get_origin(tp)
    if tp is typing.Any:
        return None
    if origin in (typing.Union, types.UnionType):
        out: set[str] = set()
        for arg in typing.get_args(tp):
            sub = _json_types_of_annotation(arg)
            if sub is None:
                return None
            out |= sub
        return out
    if origin is typing.Literal:
        return {{str: "string", int: "integer", bool: "boolean"}[type(v)] for v in typing.get_args(tp)}
    if tp is type(None):
        return {"null"}
    base = origin or tp
    if base is bool:
        return {"boolean"}
    if base is int:
        return {"integer"}
    if base is float:
        return {"number"}
    if base is str:
        return {"string"}
    if base in (list, tuple, set, frozenset):
        return {"array"}
    if base is dict or (isinstance(base, type) and dataclasses.is_dataclass(base)):
        return {"object"}
    raise AssertionError(f"no JSON type known for {tp!r}")


def _json_types_of_schema(prop: dict, defs: dict) -> set[str] | None:
    if not prop:
        return None  # {}: any value
    if "$ref" in prop:
        ref = prop["$ref"].rsplit("/", 1)[-1]
        target = defs[ref[: -len(".schema.json")] if ref.endswith(".schema.json") else ref]
        return _json_types_of_schema(target, defs)
    for key in ("anyOf", "oneOf"):
        if key in prop:
            out: set[str] = set()
            for sub in prop[key]:
                s = _json_types_of_schema(sub, defs)
                if s is None:
                    return None
                out |= s
            return out
    if "type" in prop:
        return {prop["type"]} if isinstance(prop["type"], str) else set(prop["type"])
    if "enum" in prop or "const" in prop:
        values = prop.get("enum", [prop.get("const")])
        return {{str: "string", int: "integer", bool: "boolean", type(None): "null", float: "number"}[type(v)]
                for v in values}
    if "properties" in prop or "allOf" in prop:
        return {"object"}
    return None


def test_every_record_field_has_the_json_type_of_its_annotation():
    """Type drift: each dataclass field's annotation and its schema property allow the same JSON types
    (a float field may hold an integer; the schema's "number" covers both)."""
    import dataclasses
    import importlib
    import typing

    from jitscope._serde import Record
    from jitscope.results import _base

    for mod in ("model", "analyze.compare", "analyze.numerics", "analyze.jaxpr_stats", "analyze.hlo",
                "analyze.bloat", "analyze.scaling", "analyze.watch_summary", "collect.variants"):
        importlib.import_module(f"jitscope.{mod}")
    _base._import_all()
    defs: dict = {}
    for name in schema_names():
        doc = load_schema(name)
        defs[name] = doc
        for key, value in doc.get("$defs", {}).items():
            defs.setdefault(key, value)
    todo, checked, problems = list(Record.__subclasses__()), 0, []
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if not dataclasses.is_dataclass(cls):
            continue
        schema = defs[cls.kind if issubclass(cls, _base.Result) else cls.__name__]
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            want = _json_types_of_annotation(hints[f.name])
            have = _json_types_of_schema(schema["properties"][f.name], defs)
            checked += 1
            if want is None or have is None:
                continue
            if "number" in have:
                have = have | {"integer"}
            if "number" in want:
                want = want | {"integer"}
            if want != have:
                problems.append(f"{cls.__name__}.{f.name}: annotation {sorted(want)} vs schema {sorted(have)}")
    assert not problems, "\n".join(problems)
    assert checked >= 150
