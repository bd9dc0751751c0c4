"""Prints the command lines of the ```sh blocks in README.md's mspti-trace section, one per line,
comments removed: what a newcomer types. Used by test_newcomer.py (build tree) and by
tests/install/install_check.sh (installed launcher).

    python3 readme_commands.py README.md
"""
import re
import sys


def commands(readme_path):
    text = open(readme_path, encoding="utf-8").read()
    section = text.split("## mspti-trace", 1)[1].split("\n## ", 1)[0]
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                lines.append(line)
    return lines


if __name__ == "__main__":
    print("\n".join(commands(sys.argv[1])))
