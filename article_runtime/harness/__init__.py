"""The hygiene harness: validation, repairs, assembly, grounding (spec 8)."""
