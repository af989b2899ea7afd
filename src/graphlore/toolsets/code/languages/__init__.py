"""Languages."""
