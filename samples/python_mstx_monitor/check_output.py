"""Checks python_mstx_monitor's output (stdin): per rank one HOST and one DEVICE range (docs/compatibility.md, "Markers")."""
import re
import sys

ranks = int(sys.argv[1])
text = sys.stdin.read()
sys.stdout.write(text)
pattern = (r"\[rank (\d+)\] \[RANGE\] sourceKind: MSPTI_ACTIVITY_SOURCE_KIND_(HOST|DEVICE), id: \d+, "
           r"name: '([^']*)', domain: '([^']*)', processId: (-?\d+), threadId: (-?\d+), deviceId: (-?\d+), "
           r"streamId: (-?\d+), start: (\d+), end: (\d+)")
seen = {}
for rank, src, name, domain, pid, tid, dev, stream, start, end in re.findall(pattern, text):
    rank, pid, tid, dev, stream = int(rank), int(pid), int(tid), int(dev), int(stream)
    ok = len(start) == 19 and len(end) == 19 and int(end) >= int(start)
    if src == "HOST":
        ok &= name == "mstx_matmul" and domain == "default" and pid > 0 and tid > 0 and dev == -1 and stream == -1
    else:
        ok &= name == "" and domain == "" and pid == -1 and tid == -1 and dev == rank and stream >= 0
    if not ok:
        sys.exit(f"python_mstx_monitor: unexpected {src} range on rank {rank}")
    seen[(rank, src)] = seen.get((rank, src), 0) + 1
expected = {(r, s): 1 for r in range(ranks) for s in ("HOST", "DEVICE")}
if seen != expected:
    sys.exit(f"python_mstx_monitor: expected {expected}, got {seen}")
print(f"python_mstx_monitor: OK ({ranks} ranks x 1 HOST + 1 DEVICE range)")
