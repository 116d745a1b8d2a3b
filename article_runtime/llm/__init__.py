"""LLM calls: prompts, context, provider policy and tracing records (spec 3-5, 10, 12)."""
