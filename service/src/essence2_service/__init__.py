"""essence2-service: the reference service that libessence2 reports to (docs/service-protocol.md)."""

__version__ = "0.1.0"
