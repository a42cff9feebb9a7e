"""How llama-cpp-python is built on this machine, so that it cannot crash on AMX CPUs.

GCC 12's ``amxtileintrin.h`` implements ``_tile_loadconfig`` as inline asm whose memory operand
claims to read 8 bytes (``"m" (*((const void **)__config))``), not the 64-byte tile config. At -O2
the compiler deletes the stores that fill llama.cpp's stack tile config
(``ggml_tile_config_init`` in ``ggml-cpu/amx/mmq.cpp``), ``ldtilecfg`` loads garbage and the CPU
raises #GP: the process dies on the first batch of two or more tokens (upstream:
ggml-org/llama.cpp PR #26954, issue #20824, ollama/ollama#17006). On an x86-64 CPU with
``amx_tile`` and an affected compiler, llama-cpp-python is therefore built with the AMX ISA
switched off (AVX-512 and the rest of ``GGML_NATIVE`` stay), into a wheel cache of argue's own:
pip's wheel cache is keyed by the download link only, so it would hand back a broken build
whatever the flags say.

``run.sh`` runs this file with the venv's Python before argue is installed, so it imports only
the standard library. ``python argue/_llama_build.py ensure`` installs a safe build when one is
needed (and replaces a broken one, saying so); ``… plan`` prints the decision.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

NO_AMX_FLAGS = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
_AFFECTED_ASM = r"ldtilecfg\t%X0"
_X86_64 = {"x86_64", "amd64"}
_PACKAGE = "llama-cpp-python"


@dataclass(frozen=True)
class BuildPlan:
    """What the llama-cpp-python build needs on this machine, and why."""

    avoid_amx: bool
    reason: str
    env: dict[str, str] = field(default_factory=dict)

    def cache_key(self, machine: str, compiler: str, cpu_flags: frozenset[str]) -> str:
        """A key for argue's wheel cache: a wheel built with other flags never matches."""
        material = json.dumps(
            [sorted(self.env.items()), machine, compiler, sorted(cpu_flags)], sort_keys=True
        )
        return hashlib.sha256(material.encode()).hexdigest()[:16]


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The ``flags`` of the first CPU in a ``/proc/cpuinfo`` text."""
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def compiler_is_affected(preprocessed: str) -> bool:
    """Whether a preprocessed ``<immintrin.h>`` (``-mamx-tile``) has GCC 12's 8-byte operand."""
    return any(
        _AFFECTED_ASM in line and "const void **" in line for line in preprocessed.splitlines()
    )


def decide(machine: str, flags: frozenset[str], affected: bool | None) -> BuildPlan:
    """The build for a CPU (``uname -m`` and its flags) and a compiler probe.

    ``affected`` is None when the probe could not run (no C++ compiler found, or it failed):
    on an AMX CPU that is treated as affected, since a slower build beats a crash.
    """
    if machine.lower() not in _X86_64:
        return BuildPlan(False, f"{machine} is not x86-64: no AMX code to avoid")
    if "amx_tile" not in flags:
        return BuildPlan(False, "this CPU has no AMX (no amx_tile flag)")
    if affected is False:
        return BuildPlan(False, "AMX CPU, but the compiler's _tile_loadconfig is correct")
    why = (
        "AMX CPU and a compiler whose _tile_loadconfig is miscompiled (GCC 12)"
        if affected
        else "AMX CPU and the compiler could not be checked"
    )
    existing_cmake = os.environ.get("CMAKE_ARGS", "")
    env = {
        "CFLAGS": f"{os.environ.get('CFLAGS', '')} {NO_AMX_FLAGS}".strip(),
        "CXXFLAGS": f"{os.environ.get('CXXFLAGS', '')} {NO_AMX_FLAGS}".strip(),
        "CMAKE_ARGS": f"{existing_cmake} -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF "
        "-DGGML_AMX_BF16=OFF".strip(),
    }
    return BuildPlan(True, why, env)


def probe_compiler(cxx: str | None = None) -> bool | None:
    """Run the compiler probe: None when no compiler answers."""
    compiler = cxx or os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not compiler:
        return None
    try:
        done = subprocess.run(
            [compiler, "-mamx-tile", "-E", "-x", "c++", "-"],
            input="#include <immintrin.h>\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return compiler_is_affected(done.stdout)


def compiler_version(cxx: str | None = None) -> str:
    compiler = cxx or os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or ""
    if not compiler:
        return "none"
    try:
        done = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (done.stdout.splitlines() or ["unknown"])[0]


def system_info_has_amx(system_info: str) -> bool:
    """Whether ``llama_cpp.llama_print_system_info()`` says the build runs AMX code."""
    return re.search(r"\bAMX_INT8\s*=\s*1\b", system_info) is not None


def this_machine() -> tuple[str, frozenset[str]]:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        cpuinfo = ""
    return platform.machine(), cpu_flags(cpuinfo)


def requirement(pyproject: Path) -> str:
    """The llama-cpp-python requirement of the ``local`` extra, as pyproject.toml states it."""
    data = tomllib.loads(pyproject.read_text())
    for spec in data["project"]["optional-dependencies"]["local"]:
        if re.match(rf"{re.escape(_PACKAGE)}\b", spec):
            return spec
    raise SystemExit(f"argue setup: pyproject.toml has no {_PACKAGE} in the local extra")


def wheel_cache_root() -> Path:
    configured = os.environ.get("ARGUE_WHEEL_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "argue" / "wheels"


def _say(message: str) -> None:
    print(f"argue setup: {message}", file=sys.stderr, flush=True)


def _installed_system_info(python: str) -> str | None:
    """The installed build's system info; None when llama-cpp-python is not installed, "" when
    it is installed but cannot be imported (a broken build, replaced like an AMX one)."""
    code = (
        "import importlib.util, sys\n"
        "if importlib.util.find_spec('llama_cpp') is None: sys.exit(3)\n"
        "import llama_cpp\n"
        "info = llama_cpp.llama_print_system_info()\n"
        "print(info.decode() if isinstance(info, bytes) else info)\n"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=300)
    if done.returncode == 3:
        return None
    return done.stdout if done.returncode == 0 else ""


def _build_wheel(python: str, spec: str, plan: BuildPlan, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="build-", dir=target.parent))
    env = {**os.environ, **plan.env}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    _say(f"building {_PACKAGE} without AMX code ({plan.reason}); this takes about 10 minutes.")
    try:
        subprocess.run(
            [
                python,
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--disable-pip-version-check",
                "--no-cache-dir",
                "--no-deps",
                "--no-binary",
                _PACKAGE,
                "--wheel-dir",
                str(scratch),
                spec,
            ],
            env=env,
            check=True,
            stdout=sys.stderr,
        )
        wheels = sorted(scratch.glob("llama_cpp_python-*.whl"))
        if not wheels:
            raise SystemExit(f"argue setup: building {_PACKAGE} produced no wheel")
        if target.exists():
            shutil.rmtree(target)
        scratch.rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return sorted(target.glob("llama_cpp_python-*.whl"))[-1]


def ensure(python: str, pyproject: Path) -> int:
    """Install an AMX-free llama-cpp-python into ``python``'s environment when this machine
    needs one; replace an installed build that runs AMX code. Returns an exit status."""
    machine, flags = this_machine()
    plan = decide(machine, flags, probe_compiler())
    if not plan.avoid_amx:
        return 0
    info = _installed_system_info(python)
    if info is not None:
        if info and not system_info_has_amx(info):
            return 0
        if info:
            _say(
                f"the installed {_PACKAGE} runs AMX code built by a compiler that miscompiles "
                "it (it would crash on its first real completion): rebuilding it once without "
                "AMX."
            )
        else:
            _say(f"the installed {_PACKAGE} cannot be imported: rebuilding it without AMX.")
    key = plan.cache_key(machine, compiler_version(), flags)
    cached = sorted((wheel_cache_root() / key).glob("llama_cpp_python-*.whl"))
    if cached:
        wheel = cached[-1]
    else:
        wheel = _build_wheel(python, requirement(pyproject), plan, wheel_cache_root() / key)
    if info is not None:
        subprocess.run(
            [python, "-m", "pip", "uninstall", "--quiet", "--yes", _PACKAGE],
            check=True,
            stdout=sys.stderr,
        )
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(wheel)],
        check=True,
        stdout=sys.stderr,
    )
    after = _installed_system_info(python)
    if after is None or system_info_has_amx(after):
        _say(f"{_PACKAGE} still reports AMX code after the rebuild: {wheel} is not safe")
        return 1
    _say(f"{_PACKAGE} installed without AMX code (wheel cached at {wheel.parent}).")
    return 0


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "plan"
    if command == "plan":
        machine, flags = this_machine()
        plan = decide(machine, flags, probe_compiler())
        print(json.dumps({"avoid_amx": plan.avoid_amx, "reason": plan.reason, "env": plan.env}))
        return 0
    if command == "ensure":
        root = Path(__file__).resolve().parent.parent
        return ensure(sys.executable, root / "pyproject.toml")
    print(f"usage: {argv[0]} plan|ensure", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
