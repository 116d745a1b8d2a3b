"""The composition root: the Faust app with every agent, table and view (``app``), the
operator views over the agents' tables (``views``) and the worker process (``main``).

It sits above the agents it wires: nothing below imports it."""
