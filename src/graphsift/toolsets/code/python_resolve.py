from .resolve import FileResult, file_node


class PythonResolver:
    def __init__(self, table, tracker):
        self.table, self.t = table, tracker

    def resolve_file(self, bound):
        return FileResult(nodes=[file_node(bound, "module", {"role": "OTHER", "capabilities": []})])
