"""Tasks mined from a repository's history: each kept commit becomes an ordinary task folder.

A commit that changes the project's code and its tests is a task waiting to be written down: the
parent is the workspace, the commit's code change is the reference solution, and the commit's tests
that fail on the parent and pass on the commit are the hidden verifier. Nothing here trusts the
commit: a task is written only when ``tasks check`` proves it honest, and every other candidate gets
one reason, kept in ``mined.json``. The repository is read through git and never changed.

The group sits above ``run`` (it proves tasks with ``run.taskcheck``) and below the faces: the
``granularity tasks mine`` command only parses and hands over to :func:`miner.mine`.
"""
