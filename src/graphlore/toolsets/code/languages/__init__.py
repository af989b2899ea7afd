"""What a language is to the code toolset: the interface (`base.Language`), the registry, and what every language shares; one package per language."""
