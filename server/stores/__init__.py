"""Where the server keeps its games: the `GameStore` protocol the core needs (`protocol`), the
SQLite store of one node (`sqlite`) and the Redis store of a cluster (`redis`). This package's
own module imports nothing, so the core may import `protocol` without any database."""
