"""Frameworks."""
