"""Python."""
