"""The Faust agents, one module each: a pure stage function plus its thin ``register``.

Flow (topics in ``streams.topics``): candidates -> hygiene -> assembly -> (compensation ->
hygiene)* -> assembled; assembled + ECP verdict -> enrichment -> enriched; the ledger watches
every topic for the web views. ``ecp_standin`` is for local runs only. ``versions`` orders the
versions of a page published again under its ID; assembly and enrichment also watch the
compensation topic (``watching``) for a newer version that ended early.
"""
