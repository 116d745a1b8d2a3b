"""Promptfoo assertions: each calls the runtime's own validators, never a regex or a judge model."""
