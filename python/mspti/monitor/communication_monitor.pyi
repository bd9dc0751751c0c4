from ._kinds import CommunicationMonitor as CommunicationMonitor
