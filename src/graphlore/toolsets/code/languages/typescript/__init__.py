"""TypeScript and JavaScript."""
