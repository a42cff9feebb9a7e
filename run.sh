#!/usr/bin/env bash
# argue launcher: bootstraps .venv on first use (or when pyproject.toml changes), then runs argue.
#   ./run.sh argue "question" ...   run a debate (any argue sub-command works the same way)
#   ./run.sh test [pytest args]     install dev deps if needed and run the whole test suite
#                                   (a worker per core plus one; ARGUE_TEST_WORKERS=N)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
PYTHON_BIN="${ARGUE_PYTHON:-}"

say() { printf 'argue setup: %s\n' "$*" >&2; }

find_python() {
    if [[ -n "$PYTHON_BIN" ]]; then echo "$PYTHON_BIN"; return; fi
    for candidate in python3.11 python3 python; do
        if command -v "$candidate" >/dev/null 2>&1 &&
           "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
            echo "$candidate"; return
        fi
    done
    say "Python 3.11 or newer is required but was not found on PATH (set ARGUE_PYTHON to its path)."
    exit 2
}

# $1: extras to install ("local,mcp,serve" or "local,dev,mcp,serve"); reinstalls when pyproject.toml
# or the extras change. `serve` (starlette, uvicorn) and `mcp` (the MCP SDK) are small, and
# `argue serve` and `argue mcp` need them: nothing is left to install by hand.
ensure_venv() {
    local extras="$1"
    local stamp="$VENV/.argue-installed"
    local want
    # The stamp names the llama.cpp build rule too: a .venv set up before the AMX rule (whose
    # llama-cpp-python may run miscompiled AMX code) is checked again, and rebuilt if broken.
    want="$(cat "$ROOT/pyproject.toml" "$ROOT/argue/_llama_build.py" | sha256sum | cut -c1-16) [$extras]"
    if [[ -x "$PY" && -f "$stamp" ]] && grep -qxF "$want" "$stamp"; then
        return
    fi
    # A stamp for a superset of extras also satisfies the request.
    if [[ -x "$PY" && -f "$stamp" && "$extras" == "local,mcp,serve" ]] &&
        grep -qxF "${want% *} [local,dev,mcp,serve]" "$stamp"; then
        return
    fi
    if [[ ! -x "$PY" ]]; then
        say "creating $VENV (first run)"
        "$(find_python)" -m venv "$VENV"
        "$PY" -m pip install --quiet --upgrade pip >&2
    fi
    # On an AMX CPU whose compiler miscompiles AMX code (GCC 12), llama-cpp-python is built
    # without it first, into argue's own wheel cache (argue/_llama_build.py says why).
    "$PY" "$ROOT/argue/_llama_build.py" ensure
    say "installing argue with extras [$extras] into .venv."
    say "The first install builds llama-cpp-python from source (5 to 12 minutes on 2 cores); the wheel is cached, so later installs are quick."
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
        "$PY" -m pip install --quiet --disable-pip-version-check -e "$ROOT[$extras]" >&2
    echo "$want" > "$stamp"
    say "done."
}

if [[ "${1:-}" == "test" ]]; then
    shift
    ensure_venv "local,dev,mcp,serve"
    cd "$ROOT"
    # The suite starts many Python processes (workers, CLI and server subprocesses); with
    # PYTHONDONTWRITEBYTECODE set (some images set it) each of them compiles argue and the
    # tests from source again. Bytecode goes to the usual, git-ignored __pycache__ folders.
    unset PYTHONDONTWRITEBYTECODE
    # Compiled once here rather than by every worker at once (pytest rewrites and compiles the
    # test modules themselves).
    "$PY" -m compileall -q -j 0 argue tests >/dev/null || true
    # Two cores or more: one worker per core plus one (pytest-xdist). Several modules spend most
    # of their time waiting on another process (the llama.cpp server, Chromium, CLI
    # subprocesses), and a waiting worker leaves its core idle: on 2 cores, about 110
    # worker-seconds a run with two workers; a fourth worker starved the llama.cpp server
    # instead (bench/README.md, "suite_time.py"). A test module's tests stay on one worker (its
    # fixtures, such as the llama.cpp server, start once; the longest modules are handed out
    # first, in tests/conftest.py's order: --no-loadscope-reorder, since xdist otherwise sorts
    # modules by their number of tests and the 3-test llama.cpp module started last). Under
    # xdist the llama.cpp server runs one inference thread per spare core
    # (tests/e2e/test_llama_server.py says why). One core: serial.
    # ARGUE_TEST_WORKERS=N sets the workers (0: none).
    cores="$(nproc 2>/dev/null || echo 1)"
    workers="${ARGUE_TEST_WORKERS:-$([[ "$cores" -ge 2 ]] && echo $((cores + 1)) || echo 0)}"
    if [[ "$workers" == "0" ]]; then
        exec "$PY" -m pytest "$@"
    fi
    exec "$PY" -m pytest -n "$workers" --dist loadscope --no-loadscope-reorder "$@"
fi

ensure_venv "local,mcp,serve"
# Debates from a clone live in its own debates/ folder, whatever the current folder is.
export ARGUE_DEBATES_DIR="${ARGUE_DEBATES_DIR:-$ROOT/debates}"
export ARGUE_LAUNCHER="${ARGUE_LAUNCHER:-./run.sh}"  # hints name the command the user ran
# `./run.sh argue "question"` and `./run.sh "question"`-style sub-commands both reach the CLI.
exec "$PY" -m argue "$@"
