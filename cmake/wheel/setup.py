"""Packs mspti, vnpu and mspti_trace, with the extension modules and the native libraries
(mspti/_libs) that build_wheel.sh staged next to this file, into one platform wheel."""
import os

from setuptools import find_packages, setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    """The packages carry compiled code: a cpXY-cpXY-linux_<arch> wheel, not a pure one."""

    def has_ext_modules(self):
        return True


setup(
    name="mspti",
    version=os.environ.get("MSPTI_VERSION", "0.0.0"),
    description="msPTI-compatible profiling: Monitor API, mstx markers, virtual NPU, mspti-trace",
    packages=find_packages(),
    # py.typed and the stubs: an installed wheel type-checks (PEP 561); the trace report's assets.
    package_data={"mspti": ["*.so", "_libs/*", "py.typed", "*.pyi"], "mspti.monitor": ["*.pyi"],
                  "vnpu": ["*.so", "py.typed", "*.pyi"], "mspti_trace": ["report_assets/*"]},
    install_requires=["numpy"],
    # The launcher; it finds libmspti_trace.so and libmspti.so in mspti/_libs (mspti._paths).
    entry_points={"console_scripts": ["mspti-trace = mspti_trace.cli:console_main"]},
    python_requires=">=3.8",
    distclass=BinaryDistribution,
    zip_safe=False,
)
