"""The Redis stream of engine jobs between a cluster's server nodes and `ubao-engine worker`.

Nodes write bot turns to it and workers take them through one consumer group (docs/cluster.md,
"Engine workers"). Both ends name the stream and the group from here, so that they meet.
"""

from __future__ import annotations

JOB_STREAM = "ubao:jobs"
"""The stream of jobs every node writes and every worker reads."""
LOW_JOB_STREAM = "ubao:jobs:low"
"""The stream of jobs that wait for the others (a finished game's analysis, of kind `review`):
a worker reads it only when `JOB_STREAM` has nothing for it."""
WORKER_GROUP = "workers"
"""The consumer group of the workers: each job goes to one of them."""
