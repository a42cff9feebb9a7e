"""How llama-cpp-python is built (argue/_llama_build.py): the flag decision, machine × CPU flags ×
compiler probe → the build environment, so that an AMX CPU with GCC 12's miscompiled
``_tile_loadconfig`` never gets a build that dies on its first real completion (issue 19).

Guarantees: the CPU flags are read from /proc/cpuinfo's first ``flags`` line; the compiler probe
calls GCC 12's 8-byte-operand asm affected and a fixed header not; only an x86-64 CPU with
``amx_tile`` whose compiler is affected (or could not be checked) gets ``-mno-amx-*`` in
CFLAGS/CXXFLAGS (flags already set are kept) and the AMX CMake options off, every other machine
an untouched environment; a build's system info is read for ``AMX_INT8 = 1``; the wheel cache key
changes with the flags, so a wheel built with other flags is never reused.

Teeth (each mutation patched into argue._llama_build by a throwaway pytest plugin, the file
itself left alone): ``decide`` taking an unchecked compiler (None) for a fixed one made the two
x86-64 AMX "unknown" rows of the decision table and the cache-key test fail;
``compiler_is_affected`` matching ``ldtilecfg\t%X0`` alone made the fixed-header test fail;
``cache_key`` leaving out the environment made the cache-key test fail.
"""

from __future__ import annotations

import re

import pytest

from argue import _llama_build as build
from argue._llama_build import (
    NO_AMX_FLAGS,
    BuildPlan,
    compiler_is_affected,
    cpu_flags,
    decide,
    system_info_has_amx,
)

AMX_FLAGS = frozenset({"fpu", "avx2", "avx512f", "amx_bf16", "amx_tile", "amx_int8"})
NO_AMX = frozenset({"fpu", "avx2", "avx512f"})
# GCC 12.2's amxtileintrin.h as `g++ -mamx-tile -E` prints it: a literal backslash-t in the text.
GCC12_LINE = r'  __asm__ volatile ("ldtilecfg\t%X0" :: "m" (*((const void **)__config)));'
GCC12_HEADER = "\n".join(
    [
        "extern __inline void",
        "__attribute__((__gnu_inline__, __always_inline__, __artificial__))",
        "_tile_loadconfig (const void *__config)",
        "{",
        GCC12_LINE,
        "}",
    ]
)
# A fixed header: the operand covers the 64-byte config, or a builtin does the load.
FIXED_ASM_LINE = (
    r'  __asm__ volatile ("ldtilecfg\t%X0" :: "m" (*((const unsigned char (*)[64])__config)));'
)
FIXED_BUILTIN_HEADER = (
    "_tile_loadconfig (const void *__config)\n{\n  __builtin_ia32_ldtilecfg (__config);\n}"
)
CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8481C
flags\t\t: fpu vme avx2 avx512f amx_bf16 amx_tile amx_int8
bogomips\t: 5399.99

processor\t: 1
vendor_id\t: GenuineIntel
flags\t\t: fpu vme
"""


@pytest.fixture(autouse=True)
def no_inherited_build_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CFLAGS", "CXXFLAGS", "CMAKE_ARGS"):
        monkeypatch.delenv(name, raising=False)


def test_cpu_flags_are_the_first_cpus_flags_line() -> None:
    assert cpu_flags(CPUINFO) == frozenset(
        {"fpu", "vme", "avx2", "avx512f", "amx_bf16", "amx_tile", "amx_int8"}
    )
    assert cpu_flags("processor\t: 0\nvendor_id\t: AuthenticAMD\n") == frozenset()
    assert cpu_flags("") == frozenset()


def test_gcc_12s_eight_byte_operand_is_affected_and_a_fixed_header_is_not() -> None:
    assert "\\t" in GCC12_LINE  # the text holds a backslash and a t, not a tab
    assert compiler_is_affected(GCC12_LINE)
    assert compiler_is_affected(f'# 1 "<stdin>"\n{GCC12_HEADER}\nint x;\n')
    assert not compiler_is_affected(FIXED_ASM_LINE)
    assert not compiler_is_affected(FIXED_BUILTIN_HEADER)
    assert not compiler_is_affected(GCC12_LINE.replace("\\t", "\t"))  # a real tab: not GCC's text
    assert not compiler_is_affected("")


@pytest.mark.parametrize("machine", ["x86_64", "AMD64", "aarch64", "arm64"])
@pytest.mark.parametrize("flags", [AMX_FLAGS, NO_AMX], ids=["amx", "no-amx"])
@pytest.mark.parametrize("affected", [True, False, None], ids=["affected", "fixed", "unknown"])
def test_the_decision_table(machine: str, flags: frozenset[str], affected: bool | None) -> None:
    plan = decide(machine, flags, affected)

    x86 = machine.lower() in ("x86_64", "amd64")
    should_avoid = x86 and "amx_tile" in flags and affected is not False
    assert plan.avoid_amx is should_avoid, plan.reason
    assert plan.reason
    if not should_avoid:
        assert plan.env == {}
        return
    assert plan.env["CFLAGS"] == plan.env["CXXFLAGS"] == NO_AMX_FLAGS
    assert NO_AMX_FLAGS == "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    for option in ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16"):
        assert f"-D{option}=OFF" in plan.env["CMAKE_ARGS"]
    assert ("could not be checked" in plan.reason) is (affected is None)


def test_the_reasons_say_why() -> None:
    assert "not x86-64" in decide("aarch64", AMX_FLAGS, True).reason
    assert "no AMX" in decide("x86_64", NO_AMX, True).reason
    assert "correct" in decide("x86_64", AMX_FLAGS, False).reason
    assert "GCC 12" in decide("x86_64", AMX_FLAGS, True).reason


def test_flags_already_set_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CFLAGS", "-O2 -g")
    monkeypatch.setenv("CXXFLAGS", "-O3")
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_CUDA=OFF")

    env = decide("x86_64", AMX_FLAGS, True).env

    assert env["CFLAGS"] == f"-O2 -g {NO_AMX_FLAGS}"
    assert env["CXXFLAGS"] == f"-O3 {NO_AMX_FLAGS}"
    assert env["CMAKE_ARGS"].startswith("-DGGML_CUDA=OFF -DGGML_AMX_TILE=OFF")


def test_system_info_says_whether_the_build_runs_amx_code() -> None:
    broken = (
        "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | AVX512 = 1 | "
        "AMX_INT8 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 |"
    )
    assert system_info_has_amx(broken)
    assert not system_info_has_amx(broken.replace("AMX_INT8 = 1 | ", ""))
    assert not system_info_has_amx(broken.replace("AMX_INT8 = 1", "AMX_INT8 = 0"))
    assert not system_info_has_amx("AMX_INT8 = 10")
    assert not system_info_has_amx("")


def test_the_cache_key_changes_with_the_flags() -> None:
    safe = decide("x86_64", AMX_FLAGS, True)
    plain = BuildPlan(False, "no AMX")
    compiler = "g++ (Debian 12.2.0-14+deb12u1) 12.2.0"

    key = safe.cache_key("x86_64", compiler, AMX_FLAGS)
    assert re.fullmatch(r"[0-9a-f]{16}", key)
    assert key == decide("x86_64", AMX_FLAGS, None).cache_key("x86_64", compiler, AMX_FLAGS)
    assert key != plain.cache_key("x86_64", compiler, AMX_FLAGS)
    assert key != safe.cache_key("x86_64", compiler, AMX_FLAGS - {"amx_int8"})
    assert key != safe.cache_key("x86_64", "g++ 13.2.0", AMX_FLAGS)
    other = BuildPlan(True, safe.reason, {**safe.env, "CFLAGS": f"-O2 {NO_AMX_FLAGS}"})
    assert key != other.cache_key("x86_64", compiler, AMX_FLAGS)


def test_an_unrunnable_compiler_probe_is_unknown(tmp_path) -> None:
    assert build.probe_compiler(str(tmp_path / "no-such-g++")) is None
