"""Real-library lint review: install JAX libraries into a bench venv, lint each, tabulate, join a hand review.

    python benchmarks/lint_review.py [--venv /work/bench/review-venv] [--out /work/bench/review-out]
                                     [--libs numpyro,flax,...] [--install-only | --no-install]
                                     [--jobs 1] [--review review.tsv] [--sources]

1. Creates ``--venv`` if it is missing and installs each library of ``--libs`` into it, one
   at a time next to ``jax==<--jax>`` (falling back to ``--no-deps`` when the library's
   own requirements cannot be met next to that jax: linting needs only the sources). A
   library that fails both ways is skipped and listed as such.
2. Runs ``jitscope lint --json`` (this checkout's ``src``, as a subprocess) over each installed
   package directory (tests and examples that a wheel ships inside the package are linted too).
   With ``--sources`` it also downloads each library's sdist (same version, ``pip download
   --no-binary``) into ``<out>/sources`` and lints the ``tests``/``test``/``examples`` folders it
   ships, as the library ``<name>-tests`` (paths relative to ``<out>/sources``).
3. Writes to ``--out`` (outside the repository; never commit it): ``findings.json`` (every
   finding with library, path relative to site-packages, line, code, severity, confidence,
   message, source line), ``libraries.json`` (versions, files, lines, install mode),
   ``summary.md`` (per library x rule x severity table).
4. Joins the hand review ``--review`` (default ``<out>/review.tsv``), a tab-separated file keyed
   by ``library, path, line, code`` with a verdict ``real | defensible | wrong`` and a reason,
   so that classifications carry over between linter versions. ``summary.md`` then gets the
   per-rule real/defensible/wrong counts and the two goals of issue #13 (percent of error
   findings real, percent of all findings real or defensible); ``unreviewed.tsv`` lists the
   findings that still need a verdict, in the review file's format.

The recorded results live in benchmarks/RESULTS.md ("Real-library lint review").
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# distribution name -> import package directory in site-packages
LIBRARIES = {
    "numpyro": "numpyro", "blackjax": "blackjax", "diffrax": "diffrax", "equinox": "equinox",
    "flax": "flax", "optax": "optax", "distrax": "distrax", "dm-haiku": "haiku", "jaxopt": "jaxopt",
    "chex": "chex", "rlax": "rlax", "jax-md": "jax_md", "evosax": "evosax", "gymnax": "gymnax",
    "dynamax": "dynamax", "mctx": "mctx", "brax": "brax", "jumanji": "jumanji", "pgx": "pgx",
    "jraph": "jraph", "lineax": "lineax", "optimistix": "optimistix",
}
VERDICTS = ("real", "defensible", "wrong")
REVIEW_FIELDS = ["library", "path", "line", "code", "verdict", "reason", "severity", "message", "source"]


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _site_packages(venv: Path) -> Path:
    out = subprocess.run([str(_venv_python(venv)), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def _pip(venv: Path, *args: str, log) -> bool:
    cmd = [str(_venv_python(venv)), "-m", "pip", "install", "--quiet", *args]
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    return subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode == 0


def install(venv: Path, libs: list[str], jax_version: str, out: Path) -> dict[str, str]:
    """Install each library; return {library: 'deps' | 'no-deps' | 'failed' | 'present'}."""
    out.mkdir(parents=True, exist_ok=True)
    modes: dict[str, str] = {}
    with open(out / "install.log", "a") as log:
        if not _venv_python(venv).exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            _pip(venv, f"jax=={jax_version}", log=log)
        site = _site_packages(venv)
        for lib in libs:
            if (site / LIBRARIES.get(lib, lib)).is_dir():
                modes[lib] = "present"
            elif _pip(venv, f"jax=={jax_version}", lib, log=log):
                modes[lib] = "deps"
            elif _pip(venv, "--no-deps", lib, log=log):
                modes[lib] = "no-deps"
            else:
                modes[lib] = "failed"
            print(f"install {lib}: {modes[lib]}", flush=True)
    known = json.loads((out / "install.json").read_text()) if (out / "install.json").exists() else {}
    known.update({lib: mode for lib, mode in modes.items() if mode != "present" or lib not in known})
    (out / "install.json").write_text(json.dumps(known, indent=1))
    return modes


def _versions(venv: Path) -> dict[str, str]:
    out = subprocess.run([str(_venv_python(venv)), "-m", "pip", "list", "--format", "json"],
                         capture_output=True, text=True)
    try:
        return {d["name"].lower(): d["version"] for d in json.loads(out.stdout)}
    except ValueError:
        return {}


def lint_library(pkg_dir: Path, jobs: int, out: Path, tag: str = "", src: Path = ROOT / "src") -> tuple[dict, float]:
    """`jitscope lint --json` on one package directory, as a user runs it; returns (result dict, seconds)."""
    dest = out / "raw" / f"{tag or pkg_dir.name}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(src), JAX_PLATFORMS="cpu")
    cmd = [sys.executable, "-m", "jitscope", "lint", "--no-config", "--exit-zero", "--format", "json",
           "--jobs", str(jobs), "--json", str(dest), str(pkg_dir)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"jitscope lint failed on {pkg_dir} (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(dest.read_text()), dt


def fetch_sources(venv: Path, lib: str, version: str, out: Path) -> list[Path]:
    """Download and unpack the sdist of ``lib==version``; return its tests/examples folders."""
    import tarfile
    import zipfile

    sdists, sources = out / "sdists", out / "sources"
    sdists.mkdir(parents=True, exist_ok=True)
    sources.mkdir(parents=True, exist_ok=True)
    prefix = f"{lib}-{version}".replace("-", "_").lower()
    have = [a for a in sdists.iterdir() if a.name.lower().replace("-", "_").startswith(prefix)]
    if not have:
        with open(out / "install.log", "a") as log:
            subprocess.run([str(_venv_python(venv)), "-m", "pip", "download", "--quiet", "--no-deps",
                            "--no-binary", ":all:", "-d", str(sdists), f"{lib}=={version}"],
                           stdout=log, stderr=subprocess.STDOUT)
        have = [a for a in sdists.iterdir() if a.name.lower().replace("-", "_").startswith(prefix)]
    if not have:
        return []
    archive = have[0]
    root = sources / archive.name.removesuffix(".tar.gz").removesuffix(".zip")
    if not root.is_dir():
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                z.extractall(sources)
        else:
            with tarfile.open(archive) as t:
                t.extractall(sources, filter="data")
    if not root.is_dir():
        return []
    return [d for d in sorted(root.iterdir()) if d.is_dir() and d.name in ("tests", "test", "examples")]


def _source_line(path: Path, line: int) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""
    except OSError:
        return ""


def _findings(lib: str, result: dict, site: Path) -> list[dict]:
    rows = []
    for f in result.get("findings", []):
        loc = f.get("location") or {}
        file = Path(loc.get("file", ""))
        try:
            rel = str(file.resolve().relative_to(site.resolve()))
        except ValueError:
            rel = str(file)
        details = f.get("details") or {}
        rows.append({
            "library": lib, "path": rel, "line": int(loc.get("line") or 0), "code": f.get("code", ""),
            "severity": f.get("severity", ""), "confidence": f.get("confidence") or details.get("confidence", ""),
            "message": f.get("message", ""),
            "source": (details.get("source") or _source_line(file, int(loc.get("line") or 0))).strip(),
            "traced_via": details.get("traced_via") or details.get("trace_path") or "",
        })
    return rows


def _key(row: dict) -> tuple[str, str, int, str]:
    return (row["library"], row["path"], int(row["line"]), row["code"])


def load_review(path: Path) -> dict[tuple, dict]:
    if not path.exists():
        return {}
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        return {_key(r): r for r in reader if r.get("verdict") in VERDICTS}


def summarize(findings: list[dict], libs: dict[str, dict], review: dict[tuple, dict]) -> str:
    """The markdown summary: per library, per rule x severity, and the review counts."""
    lines = ["| library | version | install | files | lines | findings | seconds |",
             "|---|---|---|---:|---:|---:|---:|"]
    per_lib = Counter(f["library"] for f in findings)
    for lib, info in libs.items():
        lines.append(f"| {lib} | {info['version']} | {info['install']} | {info['files']} | {info['lines']} "
                     f"| {per_lib[lib]} | {info['seconds']:.1f} |")
    tot_files = sum(i["files"] for i in libs.values())
    tot_lines = sum(i["lines"] for i in libs.values())
    lines.append(f"| **total** | | | {tot_files} | {tot_lines} | {len(findings)} | |")

    codes = sorted({f["code"] for f in findings})
    lib_names = [lib for lib in libs if per_lib[lib]]
    lines += ["", "| rule | severity | " + " | ".join(lib_names) + " | total |",
              "|---|---|" + "---:|" * (len(lib_names) + 1)]
    by = Counter((f["code"], f["severity"], f["library"]) for f in findings)
    for code in codes:
        for sev in sorted({f["severity"] for f in findings if f["code"] == code}):
            cells = [str(by[(code, sev, lib)]) for lib in lib_names]
            lines.append(f"| {code} | {sev} | " + " | ".join(cells) + f" | {sum(by[(code, sev, lib)] for lib in lib_names)} |")

    counts: dict[tuple, Counter] = defaultdict(Counter)
    for f in findings:
        verdict = review.get(_key(f), {}).get("verdict", "unreviewed")
        counts[(f["code"], f["severity"], f["confidence"] or "-")][verdict] += 1
    lines += ["", "| rule | severity | confidence | findings | real | defensible | wrong | unreviewed |",
              "|---|---|---|---:|---:|---:|---:|---:|"]
    total = Counter()
    for (code, sev, conf), c in sorted(counts.items()):
        n = sum(c.values())
        total.update(c)
        lines.append(f"| {code} | {sev} | {conf} | {n} | {c['real']} | {c['defensible']} | {c['wrong']} "
                     f"| {c['unreviewed']} |")
    n = sum(total.values())
    lines.append(f"| **all** | | | {n} | {total['real']} | {total['defensible']} | {total['wrong']} "
                 f"| {total['unreviewed']} |")
    err = Counter()
    for (_code, sev, _conf), c in counts.items():
        if sev == "error":
            err.update(c)
    n_err = sum(err.values())

    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:.0f}%" if b else "n/a"

    lines += ["", f"- error findings real: {err['real']} of {n_err} ({pct(err['real'], n_err)}; goal >= 80%)",
              f"- all findings real or defensible: {total['real'] + total['defensible']} of {n} "
              f"({pct(total['real'] + total['defensible'], n)}; goal >= 50%)"]
    return "\n".join(lines) + "\n"


def review_corpus(args: argparse.Namespace, out: Path) -> None:
    """``--corpus``: lint each library's pkg/tests/examples folders of a prepared corpus, then summarize."""
    corpus = args.corpus.resolve()
    chosen = [s.strip() for s in args.libs.split(",") if s.strip()] if args.libs != ",".join(LIBRARIES) else []
    findings: list[dict] = []
    info: dict[str, dict] = {}
    for lib_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        if chosen and lib_dir.name not in chosen:
            continue
        for part in ("pkg", "tests", "examples"):
            folder = lib_dir / part
            if not folder.is_dir():
                continue
            tag = lib_dir.name if part == "pkg" else f"{lib_dir.name}-{part}"
            result, dt = lint_library(folder, args.jobs, out, tag=tag, src=args.src)
            rows = _findings(tag, result, corpus)
            findings += rows
            info[tag] = {"version": "corpus", "install": part, "files": result.get("files_checked", 0),
                         "lines": result.get("lines_checked", 0), "seconds": dt, "findings": len(rows)}
            print(f"{tag}: {info[tag]['files']} files, {info[tag]['lines']} lines, {len(rows)} findings, {dt:.1f}s",
                  flush=True)
    findings.sort(key=_key)
    (out / "findings.json").write_text(json.dumps(findings, indent=1))
    review = load_review(args.review or out / "review.tsv")
    with open(out / "unreviewed.tsv", "w", newline="") as fh:
        w = csv.DictWriter(fh, REVIEW_FIELDS, delimiter="\t", extrasaction="ignore")
        w.writeheader()
        for f in findings:
            if _key(f) not in review:
                w.writerow(dict(f, verdict="", reason=""))
    summary = f"jitscope ({args.src}), corpus {corpus}\n\n" + summarize(findings, info, review)
    (out / "summary.md").write_text(summary)
    print(summary)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", type=Path, default=Path("/work/bench/review-venv"))
    ap.add_argument("--out", type=Path, default=Path("/work/bench/review-out"))
    ap.add_argument("--libs", default=",".join(LIBRARIES), help="comma-separated distribution names")
    ap.add_argument("--jax", default="0.10.2", help="jax version installed next to the libraries")
    ap.add_argument("--install-only", action="store_true")
    ap.add_argument("--no-install", action="store_true", help="lint what the venv already has")
    ap.add_argument("--jobs", type=int, default=1, help="lint worker processes per library")
    ap.add_argument("--src", type=Path, default=ROOT / "src",
                    help="the jitscope sources to run (default: this checkout's src), to compare linter versions")
    ap.add_argument("--sources", action="store_true",
                    help="also lint the tests/examples folders of each library's sdist")
    ap.add_argument("--review", type=Path, default=None, help="hand review TSV (default <out>/review.tsv)")
    ap.add_argument("--corpus", type=Path, default=None,
                    help="lint a prepared corpus instead of a venv: CORPUS/<library>/{pkg,tests,examples} "
                         "(e.g. /work/corpus/tuning/libs); --libs selects libraries, default all")
    args = ap.parse_args()
    out = args.out.resolve()
    if out == ROOT or ROOT in out.parents:
        raise SystemExit("jitscope: --out must lie outside the repository (the findings are never committed)")
    if args.corpus is not None:
        review_corpus(args, out)
        return
    libs = [lib.strip() for lib in args.libs.split(",") if lib.strip()]
    if args.no_install:
        modes = json.loads((out / "install.json").read_text()) if (out / "install.json").exists() else {}
    else:
        modes = install(args.venv, libs, args.jax, out)
    if args.install_only:
        return
    site = _site_packages(args.venv)
    versions = _versions(args.venv)
    findings: list[dict] = []
    info: dict[str, dict] = {}
    for lib in libs:
        pkg = site / LIBRARIES.get(lib, lib)
        if not pkg.is_dir():
            print(f"{lib}: not installed ({modes.get(lib)}), skipped", flush=True)
            continue
        result, dt = lint_library(pkg, args.jobs, out, src=args.src)
        rows = _findings(lib, result, site)
        findings += rows
        info[lib] = {"version": versions.get(lib, "?"), "install": modes.get(lib, "?"),
                     "files": result.get("files_checked", 0), "lines": result.get("lines_checked", 0),
                     "seconds": dt, "findings": len(rows)}
        print(f"{lib} {info[lib]['version']}: {info[lib]['files']} files, {info[lib]['lines']} lines, "
              f"{len(rows)} findings, {dt:.1f}s", flush=True)
        if args.sources:
            for folder in fetch_sources(args.venv, lib, info[lib]["version"], out):
                result, dt = lint_library(folder, args.jobs, out, tag=f"{lib}-{folder.name}", src=args.src)
                rows = _findings(f"{lib}-tests", result, out / "sources")
                findings += rows
                entry = info.setdefault(f"{lib}-tests", {"version": info[lib]["version"], "install": "sdist",
                                                         "files": 0, "lines": 0, "seconds": 0.0, "findings": 0})
                entry["files"] += result.get("files_checked", 0)
                entry["lines"] += result.get("lines_checked", 0)
                entry["seconds"] += dt
                entry["findings"] += len(rows)
                print(f"  {folder.relative_to(out)}: {result.get('lines_checked', 0)} lines, {len(rows)} findings",
                      flush=True)
    findings.sort(key=_key)
    (out / "findings.json").write_text(json.dumps(findings, indent=1))
    commit = "?"
    if args.src.resolve() == (ROOT / "src").resolve():
        git = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        commit = git.stdout.strip() or "?"
    (out / "libraries.json").write_text(json.dumps({"jax": versions.get("jax", "?"), "jitscope_commit": commit,
                                                    "src": str(args.src), "libraries": info}, indent=1))
    review = load_review(args.review or out / "review.tsv")
    with open(out / "unreviewed.tsv", "w", newline="") as fh:
        w = csv.DictWriter(fh, REVIEW_FIELDS, delimiter="\t", extrasaction="ignore")
        w.writeheader()
        for f in findings:
            if _key(f) not in review:
                w.writerow(dict(f, verdict="", reason=""))
    summary = f"jitscope {commit} ({args.src}), jax {versions.get('jax', '?')}\n\n" + summarize(findings, info, review)
    (out / "summary.md").write_text(summary)
    print(summary)


if __name__ == "__main__":
    main()
