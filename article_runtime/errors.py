"""One exception root; every failure carries a categorical ``reason``.

    ArticleRuntimeError
    ├── InputError            the HTML itself cannot be used (empty, too large, too deep, binary)
    ├── ContractError         a contract file (schema, prompt) is missing or malformed
    └── NoValidProposal       every proposal failed the harness, the deterministic one too

Reason codes travel verbatim into CLI output, compensation events, traces and web views,
so people and code share one vocabulary.
"""

from __future__ import annotations


class ArticleRuntimeError(Exception):
    """Root of every error this package raises on purpose."""

    reason: str = "error"

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


class InputError(ArticleRuntimeError):
    """The article's HTML cannot be turned into candidates.

    Reasons: ``empty_html``, ``html_too_large``, ``html_too_deep``, ``too_many_elements``,
    ``not_html``,
    ``no_text_blocks``, ``corrupt_gzip``, ``unreadable_input``; for enrichment input
    ``invalid_enrichment_input`` and ``not_an_assembled_article``.
    """


class ContractError(ArticleRuntimeError):
    """A schema or prompt file the runtime depends on is missing or malformed."""


class NoValidProposal(ArticleRuntimeError):
    """Even the deterministic proposal failed the harness: a terminal failure.

    The reason is the harness's categorical reason for the last attempt
    (e.g. ``content_too_short``).
    """
