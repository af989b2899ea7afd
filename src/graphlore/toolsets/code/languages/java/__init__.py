"""Java."""
