"""Our layers' native libraries link no libmspti (DT_NEEDED): each loads or is preloaded with the one the
rule of docs/install.md chooses, so msPTI's library (soname libmspti.so) and ours (libmspti.so.0) are
never both in one process. Reads the dynamic sections with readelf.

Usage: check_no_libmspti_needed.py <readelf> <library>...
"""
import re
import subprocess
import sys


def main():
    readelf, libraries = sys.argv[1], sys.argv[2:]
    bad = []
    for lib in libraries:
        dynamic = subprocess.run([readelf, "-d", lib], stdout=subprocess.PIPE, text=True, check=True).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
        if not needed:
            bad.append(f"{lib}: no NEEDED entries read (readelf output changed?)")
        libmspti = [n for n in needed if n == "libmspti.so" or n.startswith("libmspti.so.")]
        print(f"{lib}: NEEDED {needed}")
        if libmspti:
            bad.append(f"{lib} needs {libmspti}")
    if bad:
        sys.exit("FAIL: " + "; ".join(bad))
    print(f"OK: {len(libraries)} libraries, none needs libmspti")


if __name__ == "__main__":
    main()
