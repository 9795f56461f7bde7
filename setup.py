"""The optional native core: `ubao.engine._native`, built from engine/native/*.c (C99).

Everything else is declared in pyproject.toml. A machine without a C compiler (or Python
headers) still installs and runs the pure-Python engine; the build then says so in one line.
The core's constants.h is written from the Python engine by engine/tools/native_constants.py
and committed, so that the build imports nothing of the package (tests/engine/test_native_sources.py
fails while it is stale).
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NATIVE = Path("engine", "native")
POSIX = sys.platform != "win32"


class OptionalBuildExt(build_ext):
    """Builds the native core if it can; if not, one line says the Python engine will run."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler at all: distutils raises its own errors
            self._skip(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # a compiler that fails (no Python headers, say)
            self._skip(error)

    @staticmethod
    def _skip(error: Exception) -> None:
        print(
            f"ubao: the native core was not built ({type(error).__name__}: {error}); "
            "the pure-Python engine will run",
            file=sys.stderr,
        )


setup(
    ext_modules=[
        Extension(
            "ubao.engine._native",
            sources=sorted(str(path) for path in NATIVE.glob("*.c")),
            depends=sorted(str(path) for path in NATIVE.glob("*.h")),
            # Hidden symbols: only the module's init function is exported, so the
            # calls between the C files are direct, not through the symbol table.
            extra_compile_args=(
                ["-std=c99", "-Wall", "-Wextra", "-pthread", "-fvisibility=hidden"] if POSIX else []
            ),
            # POSIX threads: the search's helper threads (--threads). In libc
            # on current Linux and macOS, but older glibc needs -pthread to link them.
            extra_link_args=["-pthread"] if POSIX else [],
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
