"""Promptfoo evals of the production prompts (spec 11).

Same prompt files, same renderer, same harness as the runtime.
"""
