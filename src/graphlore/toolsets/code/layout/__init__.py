"""The tree's layout."""
