"""The task-set validator, one concern a module: the format's description (``fields``), the
reporting and generic readers (``checker``), then a step per part of the set (``platform``,
``resources``, ``servers``, ``body``, ``task``) and the whole set (``taskset``). The public
entry points are in ``rtsched.model.validate``."""
