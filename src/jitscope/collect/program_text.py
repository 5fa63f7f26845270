"""A compiled program's StableHLO, normalised, as a fingerprint and a compact text (duplicate compiles, diff).

JAX's jit cache key holds more than the program: weak types, committed vs uncommitted arrays, the
sharding object, the function object. Two compiles of one function whose *programs* are the same
wasted the second compile; two whose programs differ only in literal constants (a learning rate
baked in) could have been one compile with the value as an argument. To see that, the program is
printed without debug info (``get_asm(enable_debug_info=False)``: no locations) and normalised:

* the module's name (``@jit_f`` vs ``@jit_f_1``) and the names of the module's own functions and
  meshes (``@_where`` vs ``@_where_0``) are renumbered in order of first appearance (``@m``,
  ``@f0``, ``@f1``, ...); other symbols (``custom_call`` targets) are kept, they name real code;
* SSA value names are renumbered per function in order of first appearance (``%v0``, ...);
* a ``stablehlo.convert`` to the same type is dropped (its uses read its operand): JAX emits one
  where a weakly typed value meets a strong one, and XLA removes it before anything else, so a
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

_CONST = re.compile(r"stablehlo\.constant dense<(.*?)> : (tensor<[^>]*>)")
_IDENTITY_CONVERT = re.compile(r"^[ \t]*(%[\w#.$-]+) = stablehlo\.convert (%[\w#.$-]+) : tensor<[^>()]*>[ \t]*\n",
                               re.M)
_FUNC_LINE = re.compile(r"^[ \t]*func\.func\b", re.M)
_DEFINED = re.compile(r"(?:func\.func (?:private |public |nested )?|sdy\.mesh )@([\w.$-]+)")
_MODULE = re.compile(r"^module @([\w.$-]+)", re.M)
_TOKEN = re.compile(r"func\.func\b|%arg\d+\b|%[\w.$-]+|@[\w.$-]+")
_EMPTY_MESH_SHARDING = re.compile(r"sdy\.sharding = #sdy\.sharding<@empty_mesh, \[[{}, ]*\]>")
_EMPTY_MESH = re.compile(r"^[ \t]*sdy\.mesh @empty_mesh = <\[\]>[^\n]*\n", re.M)
_REPLICATED = re.compile(r'mhlo\.sharding = "\{replicated\}"')
_EMPTY_ATTRS = re.compile(r"\{, |, \}| \{\}")


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
    dims, _, dt = t.rpartition("x") if "x" in t else ("", "", t)
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
    packed = struct.pack("<f", x)
    for digits in range(1, 10):
        s = f"{x:.{digits}g}"
        if struct.pack("<f", float(s)) == packed:
            return s
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
    # Identity converts: drop the line, alias its result to its operand (per function: names restart).
    aliases: dict[tuple[int, str], str] = {}
    fn = [0]
    starts = [m.start() for m in _FUNC_LINE.finditer(text)]

    def _fn_index(pos: int) -> int:
        lo, hi = 0, len(starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if starts[mid] <= pos:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def _drop_convert(m: re.Match[str]) -> str:
        aliases[(_fn_index(m.start()), m.group(1))] = m.group(2)
        return ""

    if "stablehlo.convert" in text:
        text = _IDENTITY_CONVERT.sub(_drop_convert, text)
        starts = [m.start() for m in _FUNC_LINE.finditer(text)]
    constants: list[str] = []

    def _blind(m: re.Match[str]) -> str:
        constants.append(f"{m.group(1)} : {m.group(2)}")
        return f"stablehlo.constant dense<#k> : {m.group(2)}"

    text = _CONST.sub(_blind, text)
    defined = {n for n in _DEFINED.findall(text) if n != "main"}
    symbols: dict[str, str] = {}
    module = _MODULE.search(text)
    if module is not None:
        defined.add(module.group(1))
        symbols[module.group(1)] = "@m"
    values: dict[str, str] = {}

    def _rename(m: re.Match[str]) -> str:
        tok = m.group(0)
        c = tok[0]
        if c == "f":  # a new function: SSA names restart
            fn[0] += 1
            values.clear()
            return tok
        if c == "@":
            name = tok[1:]
            if name not in defined:
                return tok
            new = symbols.get(name)
            if new is None:
                new = symbols[name] = f"@f{len(symbols)}"
            return new
        if tok.startswith("%arg") and tok[4:].isdigit():
            return tok
        seen = set()
        while (fn[0], tok) in aliases and tok not in seen:
            seen.add(tok)
            tok = aliases[(fn[0], tok)]
        if tok.startswith("%arg") and tok[4:].isdigit():
            return tok
        new = values.get(tok)
        if new is None:
            new = values[tok] = f"%v{len(values)}"
        return new

    text = _TOKEN.sub(_rename, text)
    blind = hashlib.sha256(text.encode()).hexdigest()[:20]
    whole = hashlib.sha256((text + "\n#constants\n" + "\n".join(constants)).encode()).hexdigest()[:20]
    return NormalisedProgram(text, tuple(constants), whole, blind)


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
