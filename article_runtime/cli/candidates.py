"""``article-runtime candidates FILE``: the candidate set the hygiene prompt would receive."""

from __future__ import annotations

import argparse
from pathlib import Path

from article_runtime.candidates import build_candidates
from article_runtime.candidates.decode import decode_html
from article_runtime.cli.io import print_json
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.render import context_text, hygiene_messages
from article_runtime.tokens import TOKENIZER, count_tokens


def run(args: argparse.Namespace) -> int:
    raw = Path(args.file).read_bytes()
    candidates = build_candidates(raw, url=args.url)
    messages = hygiene_messages(load_prompt("article_content_hygiene"), candidates)
    out = candidates.model_dump(mode="json")
    out["context_tokens"] = count_tokens(context_text(messages))
    out["html_tokens"] = count_tokens(decode_html(raw))
    out["tokenizer"] = TOKENIZER
    print_json(out)
    return 0
