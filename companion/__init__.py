"""Table Companion: rules engines, the legacy campaign, the event log and the runtime."""

__version__ = "0.1.0"
