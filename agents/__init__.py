"""The Faust agents, one module each: a pure stage function plus its thin ``register``.

Flow (topics in ``article_runtime.streams.kafka.topics``): ingested -> hygiene (candidates, the
model ladder, harness, assembly: ``candidates`` and ``ladder`` hold its pure parts) -> assembled
(and a compensation event per fallback decision); assembled + ECP verdict -> enrichment -> enriched;
each stage records what it takes and makes for the web views (``ledger``; ``terminals``
holds the recent terminal events' lists).
``ecp_standin`` is for local runs only. ``versions`` orders the versions of a page published
again under its ID; enrichment also watches the compensation topic (``watching``) for a newer
version that ended early, and hygiene for an operator's redrive.
"""
