"""The build's one step pyproject.toml cannot say: the checkout's generators stay out of the distribution.

They write files of the checkout (the protocol's schema, the README's tables) and import nothing a user runs.
"""

from setuptools import setup
from setuptools.command.build_py import build_py

DEV_ONLY = {("protocol", "generate"), ("sidecar", "knob_table")}
"""(package, module) of each generator left out."""


class BuildPy(build_py):
    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        found: list[tuple[str, str, str]] = super().find_package_modules(package, package_dir)
        return [m for m in found if (m[0], m[1]) not in DEV_ONLY]


setup(cmdclass={"build_py": BuildPy})
