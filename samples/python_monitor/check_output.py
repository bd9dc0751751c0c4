"""Checks python_monitor's output (stdin): per rank 1 KERNEL_AIVEC, 1 KERNEL_AICORE, 1 hcom_allReduce_."""
import collections
import re
import sys

ranks = int(sys.argv[1])
text = sys.stdin.read()
sys.stdout.write(text)
counts = collections.Counter()
for rank, what in re.findall(r"\[rank (\d+)\] \[KERNEL\] type: (KERNEL_AIVEC|KERNEL_AICORE), name: ", text):
    counts[(int(rank), what)] += 1
for rank in re.findall(r"\[rank (\d+)\] \[COMMUNICATION\] name: hcom_allReduce_, dataType: "
                       r"MSPTI_ACTIVITY_COMMUNICATION_FP32, count: 4096, ", text):
    counts[(int(rank), "COMMUNICATION")] += 1
expected = {(r, w): 1 for r in range(ranks) for w in ("KERNEL_AIVEC", "KERNEL_AICORE", "COMMUNICATION")}
if dict(counts) != expected:
    sys.exit(f"python_monitor: expected {expected}, got {dict(counts)}")
print(f"python_monitor: OK ({ranks} ranks x 1 KERNEL_AIVEC, 1 KERNEL_AICORE, 1 COMMUNICATION)")
