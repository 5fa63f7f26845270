"""The `jitscope doctor` command: which JAX this is and which private hooks attached to it."""

from __future__ import annotations

import json
import os


def doctor_info() -> dict[str, object]:
    """JAX/jaxlib versions, backend, devices, the capability table and persistent-cache settings."""
    import jax
    import jaxlib

    from . import _jaxcompat

    caps = _jaxcompat.capabilities()
    try:
        backend, devices = jax.default_backend(), [str(d) for d in jax.devices()]
    except Exception as e:  # a broken backend is what doctor exists to report, not crash on
        backend, devices = f"unavailable ({type(e).__name__}: {e})", []
    cache = {}
    for name in ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
                 "jax_persistent_cache_min_entry_size_bytes"):
        cache[name] = getattr(jax.config, name, None)
    return {
        "jax": jax.__version__,
        "jaxlib": getattr(jaxlib, "__version__", "unknown"),
        "tested_jax": " ".join(_jaxcompat.TESTED_JAX),
        "tested_range": _jaxcompat.TESTED_RANGE,
        "version_notice": _notice(_jaxcompat),
        "backend": backend,
        "devices": devices,
        "jax_platforms": os.environ.get("JAX_PLATFORMS", ""),
        "capabilities": {n: {"available": ok, "why": why, "enables": _jaxcompat.CAPABILITY_USES[n]}
                         for n, (ok, why) in caps.items()},
        "persistent_cache": cache,
    }


def _notice(compat: object) -> str | None:
    try:
        return compat.version_notice()  # type: ignore[attr-defined]
    except Exception as e:  # noqa: BLE001 - doctor reports a broken JAX, it does not crash on it
        return f"could not compare with the tested range ({type(e).__name__}: {e})"


def doctor_text(as_json: bool = False) -> str:
    """The doctor report as text (or JSON)."""
    info = doctor_info()
    if as_json:
        return json.dumps(info, indent=2, default=str) + "\n"
    lines = [f"jax {info['jax']}  jaxlib {info['jaxlib']}  (tested range: {info['tested_range']})",
             f"note: {info['version_notice']}" if info["version_notice"] else "in the tested range, every hook attached",
             f"backend: {info['backend']}  devices: {', '.join(info['devices']) or 'none'}",  # type: ignore[arg-type]
             "hooks:"]
    for name, c in info["capabilities"].items():  # type: ignore[attr-defined]
        mark = "ok     " if c["available"] else "MISSING"
        lines.append(f"  {mark} {name}: {c['enables']}" + ("" if c["available"] else f" ({c['why']})"))
    lines.append("persistent cache:")
    for k, v in info["persistent_cache"].items():  # type: ignore[attr-defined]
        lines.append(f"  {k} = {v}")
    return "\n".join(lines) + "\n"
