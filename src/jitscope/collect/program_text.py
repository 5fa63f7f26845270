"""A compiled program's StableHLO, normalised, as a fingerprint and a compact text (duplicate compiles, diff).

JAX's jit cache key holds more than the program: weak types, committed vs uncommitted arrays, the
sharding object, the function object. Two compiles of one function whose *programs* are the same
wasted the second compile; two whose programs differ only in literal constants (a learning rate
baked in) could have been one compile with the value as an argument. To see that, the program is
printed without debug info (``get_asm(enable_debug_info=False)``: no locations) and normalised:

* the module's name (``@jit_f`` vs ``@jit_f_1``) and the names of the module's own functions and
  meshes (``@_where`` vs ``@_where_0``) are renumbered in order of first appearance (``@m``,
  ``@f0``, ``@f1``, ...); other symbols (``custom_call`` targets) are kept, they name real code;
* a ``stablehlo.convert`` to the same type is dropped (its uses read its operand, and the function's
  later numbered SSA values are renumbered as the printer would number them without it): JAX emits
  one where a weakly typed value meets a strong one, and XLA removes it before anything else, so a
  weak-type flip leaves the same compiled program;
* trivial shardings are dropped: ``#sdy.sharding<@empty_mesh, [{}, ...]>`` (a committed array on one
  device), and ``mhlo.sharding = "{replicated}"`` in a one-partition module;
* each ``stablehlo.constant`` value is replaced by ``#k`` (the type stays): the text is then
  *constants-blind*, and the values are kept apart, in order.

``fingerprint`` digests the blind text and the full constant values; ``constants_blind_fingerprint``
the blind text alone. Equal fingerprints: the same program. Equal blind fingerprints only: the same
program up to the values of its literal constants.

Cost (benchmarks/RESULTS.md): printing is a few per cent of the backend compile; programs whose text
is over ``MAX_CHARS`` are not fingerprinted (the event's fingerprint stays null), so a huge unrolled
program never pays for normalisation.
"""

from __future__ import annotations

import base64
import hashlib
import re
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

from .._serde import Record

MAX_CHARS = 4_000_000  # programs printed longer than this are not fingerprinted (cost; say so in docs)
SHORT_VALUE_CHARS = 40  # a constant's value as shown: longer ones are cut, with a digest of the whole
KEEP_TEXT_CHARS = 1_000_000  # normalised texts kept for `jitscope diff` (compressed) up to this size
KEEP_CONSTANTS = 256  # constants kept per program in the table (values beyond are counted, not kept)

_CONST = re.compile(r"stablehlo\.constant dense<([^>]*)> : (tensor<[^>]*>)")
_CONST_VALUE = re.compile(r"stablehlo\.constant dense<[^>]*>(?= : tensor<)")
_IDENTITY_CONVERT = re.compile(r"^[ \t]*(%[\w#.$-]+) = stablehlo\.convert (%[\w#.$-]+) : tensor<[^>()]*>[ \t]*\n",
                               re.M)
_DEFINED = re.compile(r"(?:func\.func (?:private |public |nested )?|sdy\.mesh )@([\w.$-]+)")
_MODULE = re.compile(r"^module @([\w.$-]+)", re.M)
_SYMBOL = re.compile(r"@[\w.$-]+")
_NUMBERED = re.compile(r"%\d+")
_CONVERT_LINE = re.compile(r"^[ \t]*(%\d+) = stablehlo\.convert (%[\w#.$-]+) : tensor<[^>()]*>[ \t]*$")
_DEFINE_LINE = re.compile(r"^([ \t]*)(%\d+)((?::\d+)? = )(.*)$")
_EMPTY_MESH_SHARDING = re.compile(r"sdy\.sharding = #sdy\.sharding<@empty_mesh, \[[{}, ]*\]>")
_EMPTY_MESH = re.compile(r"^[ \t]*sdy\.mesh @empty_mesh = <\[\]>[^\n]*\n", re.M)
_REPLICATED = re.compile(r'mhlo\.sharding = "\{replicated\}"')
_EMPTY_ATTRS = re.compile(r"\{, |, \}| \{\}")
_DIMS = re.compile(r"^((?:\d+x)+)(.+)$")  # ``4x2xf32`` -> ``4x2x``, ``f32``


@dataclass(frozen=True)
class NormalisedProgram:
    """One program after normalisation: the constants-blind text and its literal constants, in order."""

    text: str  # constants-blind: every constant's value is ``#k``
    constants: tuple[str, ...]  # each constant as ``value : type`` (full value)
    fingerprint: str
    constants_blind_fingerprint: str


@dataclass
class ProgramText(Record):
    """A normalised program kept for ``jitscope diff``: one entry per distinct fingerprint of a run.

    ``text`` is the constants-blind normalised StableHLO, zlib-compressed and base64-encoded
    (``None`` when it was over ``KEEP_TEXT_CHARS`` or the run's table was full); ``constants`` the
    literal constants' short values in order (``value : type``), the first ``KEEP_CONSTANTS`` of
    ``constants_total``.
    """

    fingerprint: str
    constants_blind_fingerprint: str
    chars: int = 0  # length of the normalised text
    text: str | None = None
    constants: list[str] = field(default_factory=list)
    constants_total: int = 0

    def lines(self) -> list[str] | None:
        """The normalised text's lines, or None when it was not kept."""
        if self.text is None:
            return None
        return zlib.decompress(base64.b64decode(self.text)).decode("utf-8").splitlines()


def short_value(value: str, type_: str) -> str:
    """A constant as people read it: ``0.01 : f32`` for ``dense<0.00999999977> : tensor<f32>``.

    f32 scalars are shown with the fewest digits that give back the same float32 (``0.01``, not
    ``0.00999999977``); a long value is cut to ``SHORT_VALUE_CHARS`` with a digest of the whole, so two
    different long values never look the same.
    """
    t = type_[len("tensor<"):-1] if type_.startswith("tensor<") else type_
    shape = _DIMS.match(t)
    dims, dt = (shape.group(1)[:-1], shape.group(2)) if shape is not None else ("", t)
    v = value
    if dt == "f32":
        v = _shortest_f32(value)
    if len(v) > SHORT_VALUE_CHARS:
        v = f"{v[:SHORT_VALUE_CHARS - 12]}...#{hashlib.sha1(value.encode()).hexdigest()[:8]}"
    return f"{v} : {dt}[{dims.replace('x', ',')}]" if dims else f"{v} : {dt}"


def _shortest_f32(text: str) -> str:
    try:
        x = float(text)
    except ValueError:
        return text
    try:
        packed = struct.pack("<f", x)
        for digits in range(1, 10):
            s = f"{x:.{digits}g}"
            if struct.pack("<f", float(s)) == packed:
                return s
    except (OverflowError, ValueError):  # not a float32 value: shown as printed
        pass
    return text


def normalise(asm: str) -> NormalisedProgram:
    """Normalise a printed StableHLO module (printed without debug info); see the module docstring."""
    text, n = _EMPTY_MESH_SHARDING.subn("", asm)
    if "mhlo.num_partitions = 1 :" in text:
        text, k = _REPLICATED.subn("", text)
        n += k
    if n:
        text = _EMPTY_MESH.sub("", text)
        text = _EMPTY_ATTRS.sub(lambda m: {"{, ": "{", ", }": "}", " {}": ""}[m.group(0)], text)
    text = _canonical_values(text)
    constants = [f"{v} : {t}" for v, t in _CONST.findall(text)]
    text = _CONST_VALUE.sub("stablehlo.constant dense<#k>", text)  # a plain replacement: no per-match Python
    text = _rename_symbols(text)
    blind = hashlib.sha256(text.encode()).hexdigest()[:20]
    whole = hashlib.sha256((text + "\n#constants\n" + "\n".join(constants)).encode()).hexdigest()[:20]
    return NormalisedProgram(text, tuple(constants), whole, blind)


def _rename_symbols(text: str) -> str:
    """The module's name -> ``@m``, its own functions and meshes -> ``@f1``, ``@f2``, ... (first appearance)."""
    defined = {n for n in _DEFINED.findall(text) if n != "main"}
    symbols: dict[str, str] = {}
    module = _MODULE.search(text)
    if module is not None:
        defined.add(module.group(1))
        symbols[module.group(1)] = "@m"
    if not defined:
        return text

    def rename(m: re.Match[str]) -> str:
        name = m.group(0)[1:]
        if name not in defined:
            return m.group(0)  # a symbol the module does not define (a custom_call target): real code
        new = symbols.get(name)
        if new is None:
            new = symbols[name] = f"@f{len(symbols)}"
        return new

    return _SYMBOL.sub(rename, text)


def _canonical_values(text: str) -> str:
    """Drop identity converts and number SSA values canonically, in each function that needs it.

    MLIR's printer numbers a function's unnamed values region by region: the function's own first,
    then each nested region from where its parent stopped, sibling regions reusing the same numbers
    (the two branches of a ``case`` both start at ``%12``). Removing one op therefore renumbers values
    in other regions unevenly. A function with an identity convert to drop, or with nested regions
    (whose numbering is not textual order), is renumbered here in textual order, scope by scope,
    uses resolved to their definition in the enclosing regions; a convert's uses read its operand.
    Any other function is already numbered in textual order by the printer and is left alone.
    """
    starts, i = [], text.find("func.func ")
    while i >= 0:  # str.find: a multi-line regex scan costs more than the rest of normalising
        starts.append(text.rfind("\n", 0, i) + 1)
        i = text.find("func.func ", i + 10)
    starts.append(len(text))
    out = [text[:starts[0]]]
    for lo, hi in zip(starts, starts[1:]):
        chunk = text[lo:hi]
        if chunk.count("{\n") > 1 or ("stablehlo.convert" in chunk and _IDENTITY_CONVERT.search(chunk)):
            chunk = _renumber(chunk)
        out.append(chunk)
    return "".join(out)


def _renumber(chunk: str) -> str:
    scopes: list[dict[str, str]] = [{}]
    counter = 0

    def lookup(name: str) -> str:
        base, sep, result = name.partition("#")  # ``%5#1``: result 1 of value 5
        for scope in reversed(scopes):
            if base in scope:
                new = scope[base]
                return new + sep + result if sep and "#" not in new else new
        return name

    def use(m: re.Match[str]) -> str:
        return lookup(m.group(0))

    lines = []
    for line in chunk.split("\n"):
        stripped = line.strip()
        if stripped.startswith("}") and len(scopes) > 1:
            scopes.pop()
        convert = _CONVERT_LINE.match(line)
        if convert is not None:  # dropped: its uses read its operand
            scopes[-1][convert.group(1)] = lookup(convert.group(2))
            continue
        define = _DEFINE_LINE.match(line)
        if define is not None:
            rhs = _NUMBERED.sub(use, define.group(4))
            new = f"%{counter}"
            counter += 1
            scopes[-1][define.group(2)] = new
            line = define.group(1) + new + define.group(3) + rhs
        else:
            line = _NUMBERED.sub(use, line)
        if stripped.endswith("{"):
            scopes.append({})
        lines.append(line)
    return "\n".join(lines)


def capture(module: Any) -> NormalisedProgram | None:
    """Print and normalise a lowered MLIR module (None when it cannot be printed or is over ``MAX_CHARS``)."""
    try:
        asm = module.operation.get_asm(enable_debug_info=False)
    except Exception:  # noqa: BLE001 - another jaxlib's module API: no fingerprint, never a crash
        return None
    if not isinstance(asm, str) or len(asm) > MAX_CHARS:
        return None
    return normalise(asm)


def program_text(p: NormalisedProgram, keep_text: bool = True) -> ProgramText:
    """The table entry for ``p``: compressed text (when ``keep_text`` and small enough) and short constants."""
    text = None
    if keep_text and len(p.text) <= KEEP_TEXT_CHARS:
        text = base64.b64encode(zlib.compress(p.text.encode("utf-8"), 1)).decode("ascii")
    shorts = []
    for c in p.constants[:KEEP_CONSTANTS]:
        value, _, type_ = c.rpartition(" : ")
        shorts.append(short_value(value, type_))
    return ProgramText(p.fingerprint, p.constants_blind_fingerprint, len(p.text), text, shorts, len(p.constants))
