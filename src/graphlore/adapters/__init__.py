"""The two ways in: MCP (:mod:`.mcp`) and the command line (:mod:`.cli`), both built from ToolSpecs."""
