"""The Faust agents, one module each: a pure stage function plus its thin ``register``.

Flow (topics in ``streams.topics``): candidates -> hygiene -> assembly -> (compensation ->
hygiene)* -> assembled; assembled + ECP verdict -> enrichment -> enriched; the ledger watches
every topic for the web views. ``ecp_standin`` is for local runs only.
"""
