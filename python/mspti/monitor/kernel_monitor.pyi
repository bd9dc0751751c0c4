from ._kinds import KernelMonitor as KernelMonitor
