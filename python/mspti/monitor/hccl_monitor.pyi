from ._kinds import HcclMonitor as HcclMonitor
