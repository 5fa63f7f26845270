"""The installed JAX is inside the range pinned in pyproject.toml and named in _jaxcompat."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jax

from jitscope import _jaxcompat


def _version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v)[:3])


def test_installed_jax_satisfies_the_pin_and_the_notice_follows_the_tested_release(monkeypatch):
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    pins = [d for d in pyproject["project"]["dependencies"] if d.startswith("jax>=")]
    assert pins, "jax must be pinned"
    lo = re.match(r"jax>=([\d.]+)", pins[0]).group(1)
    assert _version_tuple(lo) <= _version_tuple(jax.__version__)
    assert _jaxcompat.version_notice() is None  # this suite runs on the fully tested release
    monkeypatch.setattr(jax, "__version__", "0.8.3")
    assert _jaxcompat.version_notice() is None  # in the matrix's range
    monkeypatch.setattr(jax, "__version__", "0.12.0")
    assert _jaxcompat.version_notice() is None  # the newest tested release
    monkeypatch.setattr(jax, "__version__", "0.13.0")
    assert "JAX 0.13.0 is outside jitscope's tested range (0.6 - 0.12)" in _jaxcompat.version_notice()
    monkeypatch.setattr(jax, "__version__", "0.5.3")
    assert "outside jitscope's tested range (0.6 - 0.12)" in _jaxcompat.version_notice()


ROOT = Path(__file__).parent.parent


def test_the_tested_range_is_the_same_in_readme_pyproject_and_jaxcompat():
    """One range (0.6 - 0.12) in the three places a user or a maintainer reads it."""
    rng = _jaxcompat.TESTED_RANGE
    assert rng == "0.6 - 0.12" and _jaxcompat.TESTED_JAX == (">=0.6", "<0.13")
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"the tested range is **JAX {rng}**" in readme
    assert f"outside {rng} or lacks a hook" in readme
    assert not re.search(r"outside 0\.6 - 0\.(?!12)\d+", readme)  # no other range left anywhere
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f"# Tested range: JAX {rng} " in pyproject
    lo = re.search(r'"jax>=([\d.]+)"', pyproject).group(1)
    assert f">={lo}" == _jaxcompat.TESTED_JAX[0]  # the pin's floor is the range's floor
    for v in _jaxcompat.FULL_SUITE_JAX:  # the releases the whole suite runs on are inside it and named
        assert _jaxcompat.TESTED_MINORS[0] <= _version_tuple(v)[:2] <= _jaxcompat.TESTED_MINORS[1]
        assert v in readme and v in pyproject
    assert _jaxcompat.FULL_SUITE_JAX[-1] in (ROOT / "Makefile").read_text()  # make test-newest runs it




def test_treedef_node_layout_marks_a_registered_dataclass_node_only_where_the_runtime_needs_it():
    """JAX 0.6 has no ``PyTreeDef.from_node_data_and_children``: there a ``register_dataclass`` node is
    marked (its kind is not in its node data); elsewhere nothing is, and records keep their form."""
    import dataclasses

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Node:
        x: object
        n: int = dataclasses.field(metadata=dict(static=True))

    class Custom:
        pass

    jax.tree_util.register_pytree_node(Custom, lambda c: ((), None), lambda aux, kids: Custom())
    cls = type(jax.tree_util.tree_structure(0))
    old = not (hasattr(cls, "from_node_data_and_children") or hasattr(cls, "make_from_node_data_and_children"))
    assert old == (jax.__version_info__ < (0, 8)) or jax.__version_info__[:2] == (0, 7)  # 0.6.2: old; 0.8.3+: not
    layout = _jaxcompat.treedef_node_layout
    assert layout(jax.tree_util.tree_structure(Node(1.0, 2))) == ("dataclass" if old else None)
    for other in (Custom(), (1, None), {"a": 1}, [1]):
        assert layout(jax.tree_util.tree_structure(other)) is None
