"""Installs ``jitscope-autowatch.pth`` next to the package (the ``JITSCOPE=watch`` startup hook,
see src/jitscope/_autowatch.py); everything else is in pyproject.toml."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH = "jitscope-autowatch.pth"


class BuildPyWithPth(build_py):
    """build_py that also puts the .pth at the root of the wheel (site-packages once installed),
    for regular and editable installs alike."""

    def run(self) -> None:
        super().run()
        self.copy_file(os.path.join("src", PTH), os.path.join(self.build_lib, PTH), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), os.path.join(self.build_lib, PTH)]


class EditableWithPth(editable_wheel):
    """``pip install -e``: the editable wheel gets the same .pth. setuptools writes every file of its
    unpacked-wheel folder into the wheel; the .pth is copied there when namespaces are (once per build)."""

    def _install_namespaces(self, installation_dir, pth_prefix):  # type: ignore[no-untyped-def]
        super()._install_namespaces(installation_dir, pth_prefix)
        self.copy_file(os.path.join("src", PTH), os.path.join(installation_dir, PTH), preserve_mode=False)


setup(cmdclass={"build_py": BuildPyWithPth, "editable_wheel": EditableWithPth})
