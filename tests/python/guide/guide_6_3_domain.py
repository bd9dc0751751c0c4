"""User guide 6.3: domain control: ranges of a disabled domain are not collected."""
from mspti import MstxMonitor, MsptiResult, RangeMarkerData, mstx

ranges: list[RangeMarkerData] = []
monitor = MstxMonitor()
monitor.start(range_cb=ranges.append)

# 创建域（通过 MSTX API）
domain_name = "my_domain"
domain = mstx.Domain(domain_name)

with domain.range("kept_1"):
    pass
# 关闭指定域的采集
assert monitor.disable_domain(domain_name) == MsptiResult.MSPTI_SUCCESS
with domain.range("dropped"):
    pass
# 重新开启指定域的采集
assert monitor.enable_domain(domain_name) == MsptiResult.MSPTI_SUCCESS
with domain.range("kept_2"):
    pass

monitor.stop()
for r in ranges:
    print(f"[RANGE] {r.name} | domain={r.domain}")
