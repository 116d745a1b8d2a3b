# The article-runtime worker image. Placeholder CMD for now: the stream worker command
# (Faust agents, issue 4 part 3) replaces it when it exists.
FROM python:3.11-slim

# PyICU builds from source against libicu-dev; pkg-config finds it, g++ compiles it.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libicu-dev g++ pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
# Editable on purpose: the code finds prompts/ and schemas/ beside the source tree
# (article_runtime/contracts.py, streams/codec.py), which a plain wheel install would not ship.
RUN pip install --no-cache-dir -e .

ENV PYTHONUNBUFFERED=1
CMD ["article-runtime", "--help"]
