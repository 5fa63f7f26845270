"""SARIF 2.1.0 output: the structure GitHub code scanning requires, checked with a JSON schema subset."""

from __future__ import annotations

import json
import textwrap

import jsonschema

from jitscope.lint.registry import all_rules

# The parts of the SARIF 2.1.0 schema that GitHub code scanning relies on.
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs", "$schema"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object",
                    "required": ["name", "version", "rules"],
                    "properties": {"rules": {"type": "array", "items": {
                        "type": "object",
                        "required": ["id", "name", "shortDescription", "fullDescription", "help",
                                     "defaultConfiguration"],
                        "properties": {
                            "id": {"type": "string", "pattern": "^JS[0-9]{3}$"},
                            "shortDescription": {"type": "object", "required": ["text"]},
                            "fullDescription": {"type": "object", "required": ["text"]},
                            "help": {"type": "object", "required": ["text", "markdown"]},
                            "defaultConfiguration": {"type": "object", "properties": {
                                "level": {"enum": ["none", "note", "warning", "error"]}}},
                        }}}},
                }}},
                "results": {"type": "array", "items": {
                    "type": "object",
                    "required": ["ruleId", "message", "locations", "level"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": 0},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"]},
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "required": ["physicalLocation"],
                            "properties": {"physicalLocation": {
                                "type": "object", "required": ["artifactLocation", "region"],
                                "properties": {
                                    "artifactLocation": {"type": "object", "required": ["uri"]},
                                    "region": {"type": "object", "required": ["startLine", "startColumn"],
                                               "properties": {"startLine": {"type": "integer", "minimum": 1},
                                                              "startColumn": {"type": "integer", "minimum": 1},
                                                              "endColumn": {"type": "integer", "minimum": 1}}},
                                }}}}},
                    }}},
            }}},
    },
}

SRC = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x: jax.Array):
        if x > 0:
            return sum(x)
        return x
""")


def test_sarif_structure(cli, tmp_path):
    p = tmp_path / "src" / "m.py"
    p.parent.mkdir()
    p.write_text(SRC)
    r = cli("lint", "--format", "sarif", "src", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    log = json.loads(r.stdout)
    jsonschema.Draft202012Validator(SARIF_SUBSET, format_checker=jsonschema.FormatChecker()).validate(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == list(all_rules())
    results = run["results"]
    assert [res["ruleId"] for res in results] == ["JS101", "JS201"]
    for res in results:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "src/m.py"
    js101 = results[0]["locations"][0]["physicalLocation"]["region"]
    assert js101 == {"startLine": 7, "startColumn": 8, "endLine": 7, "endColumn": 13}  # `x > 0`, end exclusive
    assert results[0]["level"] == "error" and results[1]["level"] == "warning"
    fix = results[1]["fixes"][0]
    assert fix["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "jnp.sum(x, axis=0)"
    js101_rule = rules[[r["id"] for r in rules].index("JS101")]
    assert "TracerBoolConversionError" in js101_rule["fullDescription"]["text"]
    # No placeholder links: the rule's whole documentation travels as help markdown.
    assert "helpUri" not in js101_rule and "## Why is this bad?" in js101_rule["help"]["markdown"]


def test_sarif_no_findings_still_lists_rules(cli, tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n")
    out = tmp_path / "report.sarif"
    r = cli("lint", "--format", "sarif", "-o", str(out), "ok.py", cwd=tmp_path)
    assert r.returncode == 0
    log = json.loads(out.read_text())
    assert log["runs"][0]["results"] == []
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == len(all_rules())


def test_sarif_outside_root_has_absolute_uri_without_base(tmp_path):
    from jitscope import lint
    from jitscope.render.sarif import render, to_sarif

    inside, outside = tmp_path / "proj" / "m.py", tmp_path / "other" / "o.py"
    for p in (inside, outside):
        p.parent.mkdir()
        p.write_text(SRC)
    result = lint([str(inside), str(outside)], config=False)
    log = to_sarif(result, root=inside.parent)
    locs = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    assert {"uri": "m.py", "uriBaseId": "%SRCROOT%"} in locs
    assert {"uri": outside.as_uri()} in locs  # absolute: no uriBaseId
    fix_loc = [r["fixes"][0]["artifactChanges"][0]["artifactLocation"] for r in log["runs"][0]["results"]
               if "fixes" in r]
    assert {"uri": outside.as_uri()} in fix_loc
    text = render(result, root=inside.parent)
    assert "\n" not in text and text == json.dumps(log, separators=(",", ":"))  # compact, no indentation


def test_report_of_saved_absolute_result_is_relative_to_its_paths(cli, tmp_path):
    src = tmp_path / "proj" / "src"
    src.mkdir(parents=True)
    (src / "m.py").write_text(SRC)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "proj", target_is_directory=True)
    saved = tmp_path / "r.json"
    r = cli("lint", "--json", str(saved), str(link), cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = cli("report", str(saved), "-o", str(tmp_path / "x.sarif"), cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    run = json.loads((tmp_path / "x.sarif").read_text())["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == link.as_uri() + "/"  # symlink kept, not resolved
    uris = {res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for res in run["results"]}
    assert uris == {"src/m.py"}
