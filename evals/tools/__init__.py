"""One-off tools that (re)build the stored cases and handwritten answers."""
