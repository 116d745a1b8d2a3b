"""Candidate extraction: from raw HTML to the candidate set the model chooses from."""

from article_runtime.candidates.builder import build_candidates

__all__ = ["build_candidates"]
