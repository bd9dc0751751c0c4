"""Typing: mypy --strict accepts the samples, the guide's examples and a typed-usage file against the
package's stubs (found as an installed package is: py.typed on the path), and reports each wrong
call of typing/wrong_calls.py at its line.

mypy is Debian's python3-mypy (.ci/setup installs it); without it these tests are skipped.
"""

import glob
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
TYPING = os.path.join(HERE, "typing")

try:
    import mypy  # noqa: F401
except ImportError:
    pytest.skip("mypy is not installed (Debian: apt-get install python3-mypy); typing checks skipped",
                allow_module_level=True)


def _package_dir():
    """The directory holding the mspti and vnpu packages (build/python on PYTHONPATH, or installed)."""
    import mspti
    return os.path.dirname(os.path.dirname(os.path.abspath(mspti.__file__)))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("mypy_cache"))


def mypy(args, cache, cwd=None):
    """Runs ``mypy --strict args``; returns (exit code, [(file, line, code, message)], output)."""
    env = dict(os.environ, PYTHONPATH=_package_dir())  # a site directory: py.typed is needed there
    env.pop("MYPYPATH", None)
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, "--no-color-output",
                           "--show-error-codes", *args], env=env, cwd=cwd or SOURCE, capture_output=True, text=True,
                          timeout=600)
    errors = [(os.path.basename(m[0]), int(m[1]), m[3], m[2])
              for m in re.findall(r"^(.+?):(\d+): error: (.*)  \[([a-z-]+)\]$", proc.stdout, re.M)]
    return proc.returncode, errors, proc.stdout + proc.stderr


def test_samples_and_guide_examples_pass_strict(cache):
    files = sorted(glob.glob(os.path.join(SOURCE, "samples", "python_*", "python_*.py")) +
                   glob.glob(os.path.join(SOURCE, "tests", "python", "guide", "*.py")))
    assert len(files) >= 12, files
    rc, errors, out = mypy(files, cache)
    assert rc == 0 and not errors, out


def test_typed_usage_passes_strict_with_real_types(cache):
    """assert_type fails where a stub gives Any, so the types checked there are the real ones."""
    rc, errors, out = mypy([os.path.join(TYPING, "typed_usage.py")], cache)
    assert rc == 0 and not errors, out


def test_wrong_calls_are_reported_at_their_lines(cache):
    path = os.path.join(TYPING, "wrong_calls.py")
    expected = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = re.search(r"# E: ([a-z-]+)$", line)
            if m:
                expected.add(("wrong_calls.py", number, m.group(1)))
    assert len(expected) >= 10
    rc, errors, out = mypy([path], cache)
    assert rc == 1, out
    assert {(f, line, code) for f, line, code, _ in errors} == expected, out
    # The first is the example: monitor.start(42).
    start42 = [msg for _, line, _, msg in errors if line == min(n for _, n, _ in expected)]
    assert start42 == ['Argument 1 to "start" of "KernelMonitor" has incompatible type "int"; expected '
                       '"Union[Callable[[KernelData], object], KernelCallback]"'], out


def test_the_guide_slip_is_what_mypy_catches(cache, tmp_path):
    """Guide 6.2 passes its range callback as the mark callback: without its type: ignore, mypy says so."""
    with open(os.path.join(SOURCE, "tests", "python", "guide", "guide_6_2_mstx_queue.py"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    slip = next(i for i, l in enumerate(lines, 1) if "# type: ignore[arg-type]" in l)
    copy = tmp_path / "guide_6_2.py"
    copy.write_text("\n".join(l.replace("  # type: ignore[arg-type]", "") for l in lines) + "\n")
    rc, errors, out = mypy([str(copy)], cache)
    assert [(line, code) for _, line, code, _ in errors] == [(slip, "arg-type")], out
    assert 'expected "Union[Callable[[MarkerData], object], MarkCallback, None]"' in errors[0][3]


def test_the_stubs_themselves_pass_strict(cache):
    root = _package_dir()
    stubs = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "mspti", "**", "*.pyi"),
                                                                 recursive=True) +
                   glob.glob(os.path.join(root, "vnpu", "*.pyi")))
    names = {os.path.basename(s) for s in stubs}
    # The generated stubs (records, enums, monitors, batch) and the hand-written ones are all there.
    assert {"activity_data.pyi", "_enums.pyi", "_kinds.pyi", "batch.pyi", "mstx.pyi", "base_monitor.pyi",
            "native.pyi", "tensors.pyi", "distributed.pyi"} <= names, stubs
    for package in ("mspti", "vnpu"):
        assert os.path.exists(os.path.join(root, package, "py.typed")), package
    rc, errors, out = mypy(stubs, cache, cwd=root)
    assert rc == 0 and not errors, out


def test_every_public_runtime_name_is_known_to_mypy(cache, tmp_path):
    """What each public module really has (read at runtime) is found by mypy, by name."""
    import mspti
    import mspti.batch
    import mspti.mstx
    import vnpu
    import vnpu.distributed
    import vnpu.native
    modules = {"mspti": [n for n in dir(mspti) if not n.startswith("_")] + ["__version__"],
               "mspti.mstx": mspti.mstx.__all__, "mspti.batch": mspti.batch.__all__,
               "vnpu": vnpu.__all__, "vnpu.distributed": vnpu.distributed.__all__,
               # vnpu.native: the facade's names (not SWIG's own helpers)
               "vnpu.native": [n for n in dir(vnpu.native) if not n.startswith(("_", "SWIG", "Swig"))
                               and n not in ("FloatVector", "ShapeVector", "SwigPyIterator", "weakref", "cvar")]}
    lines = []
    for module, names in modules.items():
        assert names, module
        lines += [f"from {module} import {n} as _{module.replace('.', '_')}_{n}" for n in sorted(set(names))]
    probe = tmp_path / "probe.py"
    probe.write_text("\n".join(lines) + "\n")
    rc, errors, out = mypy([str(probe)], cache)
    assert rc == 0 and not errors, out


def test_stubs_agree_with_the_runtime(cache):
    """mypy.stubtest imports the packages and compares every stubbed name and signature with the
    real object (argument names, defaults, kinds, classmethods, properties); differences meant are
    listed, with why, in typing/stubtest_allowlist.txt."""
    env = dict(os.environ, PYTHONPATH=_package_dir())
    proc = subprocess.run([sys.executable, "-m", "mypy.stubtest", "mspti", "vnpu", "--ignore-missing-stub",
                           "--mypy-config-file", os.path.join(TYPING, "stubtest.ini"),
                           "--allowlist", os.path.join(TYPING, "stubtest_allowlist.txt")],
                          env=env, cwd=cache, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
