#!/usr/bin/env bash
# The newest JAX release needs Python >= 3.12 and this machine (Debian 12) has 3.11, so the newest JAX
# runs in a chroot of Debian 13 (trixie, Python 3.13) built from Debian's own packages with debootstrap.
#
#   newest-jax.sh deps ROOT             install debootstrap on this machine if missing (apt-get)
#   newest-jax.sh build ROOT            build the chroot in ROOT (idempotent; a half-built ROOT is redone)
#   newest-jax.sh run ROOT REPO CMD...  run CMD in REPO inside ROOT, with REPO/.venv-py313 first on PATH
#                                       (created on first use: jax==$NEWEST_JAX + REPO's .[plot,test] extras)
#
# `run` mounts /proc, /sys, /dev (with /dev/shm and /dev/pts) and REPO (at the same path) inside ROOT, in a
# private mount namespace of its own (unshare): the mounts are invisible outside it and disappear with it,
# also when CMD fails or is killed, and several runs (several worktrees) can use one ROOT at once.
# Needs root (debootstrap, chroot, mount). Environment: NEWEST_JAX (default 0.12.0.1), NEWEST_CHROMIUM=0
# to leave Debian's chromium out of the chroot (the browser tests then skip, saying chromium is missing),
# DEBIAN_MIRROR.
set -euo pipefail

JAX_VERSION=${NEWEST_JAX:-0.12.0.1}
SUITE=trixie
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CHROMIUM=${NEWEST_CHROMIUM:-1}
VENV=.venv-py313

die() { echo "newest-jax: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mount)"
[ $# -ge 2 ] || die "usage: $0 deps ROOT | build ROOT | run ROOT REPO CMD..."
cmd=$1 ROOT=$(realpath -m "$2"); shift 2

mounted_under() { findmnt -rn -o TARGET | grep -q "^$1\(/\|$\)"; }

# Run "$@" (a shell snippet and its args) with /proc, /sys, /dev and the extra binds "REPO" mounted in ROOT,
# in a private mount namespace; each mount is also undone explicitly on the way out.
in_chroot() {
  local repo=$1; shift
  local keep=() name
  for name in $(compgen -e); do  # what the run's behaviour depends on passes through; the rest is cleared
    case $name in JAX_*|XLA_*|JITSCOPE*|CI|PYTEST_ADDOPTS|COLUMNS|NO_COLOR|FORCE_COLOR|TERM) keep+=("$name=${!name}");; esac
  done
  local ca=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
  [ -r "$ca" ] && keep+=(PIP_CERT=/etc/ssl/certs/host-ca-bundle.crt)
  unshare --mount --propagation private -- bash -euo pipefail -c '
    ROOT=$1 repo=$2 ca=$3
    undo=()
    cleanup() { for ((i=${#undo[@]}-1; i>=0; i--)); do umount -l "${undo[i]}" 2>/dev/null || true; done; }
    trap cleanup EXIT
    mount -t proc proc "$ROOT/proc"; undo+=("$ROOT/proc")
    mount --rbind /sys "$ROOT/sys"; undo+=("$ROOT/sys")
    mount --rbind /dev "$ROOT/dev"; undo+=("$ROOT/dev")
    if [ -n "$repo" ]; then mkdir -p "$ROOT$repo"; mount --bind "$repo" "$ROOT$repo"; undo+=("$ROOT$repo"); fi
    # the host'"'"'s name resolves inside as outside (gloo, jax.distributed'"'"'s CPU collectives, looks it up)
    cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    cp -L /etc/hosts "$ROOT/etc/hosts" 2>/dev/null || true
    # trust what this machine trusts (a network whose TLS goes through a local CA): pip uses its bundle
    cp -L "$ca" "$ROOT/etc/ssl/certs/host-ca-bundle.crt" 2>/dev/null || true
    n=$4; shift 4; keep=("${@:1:n}"); shift "$n"
    chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${keep[@]}" "$@"
  ' in_chroot "$ROOT" "$repo" "$ca" "${#keep[@]}" "${keep[@]}" "$@"
}

deps() {  # the host's own tools (apt's lock: .ci/run calls this before anything else runs apt)
  command -v debootstrap >/dev/null || {
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null) \
      || die "could not install debootstrap"; }
}

build() {
  mkdir -p "$(dirname "$ROOT")"
  exec 9>"$ROOT.lock"; flock 9
  local want="suite=$SUITE chromium=$CHROMIUM"
  if [ -f "$ROOT/.jitscope-chroot" ] && [ "$(cat "$ROOT/.jitscope-chroot")" = "$want" ]; then
    return 0
  fi
  if [ -f "$ROOT/.jitscope-base" ]; then
    :  # debootstrap done; only the packages on top are missing
  elif [ -e "$ROOT" ]; then
    mounted_under "$ROOT" && die "$ROOT has mounts under it; not removing it"
    echo "newest-jax: removing the half-built $ROOT"; rm -rf "$ROOT"
  fi
  if [ ! -f "$ROOT/.jitscope-base" ]; then
    deps
    echo "newest-jax: debootstrap $SUITE into $ROOT"
    # in a mount namespace of its own: the /proc it mounts in ROOT goes away with it, even if it fails
    unshare --mount --propagation private -- debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
      "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 \
      || { tail -20 "$ROOT.debootstrap.log" >&2; die "debootstrap failed (log: $ROOT.debootstrap.log)"; }
    touch "$ROOT/.jitscope-base"
  fi
  if [ "$CHROMIUM" = 1 ]; then
    echo "newest-jax: Debian chromium into $ROOT"
    in_chroot "" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null' \
      || echo "newest-jax: warning: could not install chromium; the browser tests will skip" >&2
  fi
  echo "$want" >"$ROOT/.jitscope-chroot"
}

run() {
  [ -f "$ROOT/.jitscope-chroot" ] || die "$ROOT is not built: run '$0 build $ROOT' first"
  [ $# -ge 2 ] || die "usage: $0 run ROOT REPO CMD..."
  local repo; repo=$(realpath "$1"); shift
  [ -f "$repo/pyproject.toml" ] || die "$repo is not a jitscope checkout"
  # The venv is (re)made when pyproject.toml, setup.py or the JAX version change, under a lock per checkout.
  local stamp; stamp=$(cat "$repo/pyproject.toml" "$repo/setup.py" | sha256sum | cut -c1-16)-$JAX_VERSION
  in_chroot "$repo" bash -euo pipefail -c '
    repo=$1 venv=$2 jax=$3 stamp=$4; shift 4
    cd "$repo"
    exec 9>"$venv.lock"; flock 9
    if [ ! -f "$venv/.installed-$stamp" ]; then
      echo "newest-jax: making $repo/$venv (jax $jax, python $(python3 -c "import sys; print(sys.version.split()[0])"))" >&2
      rm -rf "$venv"; python3 -m venv "$venv"
      "$venv/bin/python" -m pip install -q --upgrade pip
      "$venv/bin/python" -m pip install -q "jax==$jax" "jaxlib==$jax" -e ".[plot,test]"
      touch "$venv/.installed-$stamp"
    fi
    exec 9>&-
    export PATH="$repo/$venv/bin:$PATH" VIRTUAL_ENV="$repo/$venv" JAX_PLATFORMS="${JAX_PLATFORMS:-cpu}"
    exec "$@"
  ' venv "$repo" "$VENV" "$JAX_VERSION" "$stamp" "$@"
}

case $cmd in
  deps) deps ;;
  build) build ;;
  run) run "$@" ;;
  *) die "unknown command '$cmd' (build or run)" ;;
esac
