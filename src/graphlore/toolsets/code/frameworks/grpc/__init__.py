"""gRPC as a first-class link: services and methods from the project's ``.proto`` files (`services`), routes
(``kind`` grpc, named ``package.Service/Method``) where a server registers an implementation and clients where
a stub calls a method, in every language that has them (one reader per language family)."""
