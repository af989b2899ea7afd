"""graphsift: strict, honest knowledge access for AI agents over MCP."""

__version__ = "0.1.0"
