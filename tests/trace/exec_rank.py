"""Run by vnpu.run once per rank: replaces the Python process with the native workload, so that
the ranks are C++ programs launched from Python (the environment, LD_PRELOAD included, carries over)."""
import os
import sys

os.execv(sys.argv[1], sys.argv[1:])
