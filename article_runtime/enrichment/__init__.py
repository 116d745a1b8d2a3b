"""Enrichment (spec 9): sentiment towards the ECP entity and grounded tags."""
