# The article-runtime worker image: `article-runtime-worker` runs every Faust agent and serves
# the web views (/health/, /counters/, ...) on $ARTICLE_RUNTIME_WEB_PORT (6066).
# Kubernetes: helm/article-runtime/. Local: docker-compose.yml.
FROM python:3.11-slim

# PyICU builds from source against libicu-dev; pkg-config finds it, g++ compiles it.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libicu-dev g++ pkg-config \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . .
# Editable on purpose: the code finds prompts/ and schemas/ beside the source tree
# (article_runtime/contracts.py, streams/codec.py), which a plain wheel install would not ship.
# Bytecode is compiled here because the non-root user cannot write __pycache__ under /app.
RUN pip install --no-cache-dir -e . \
    && python -m compileall -q article_runtime streams agents

# Non-root. /var/lib/article-runtime is the only writable place: the worker starts there, so
# Faust's data directory ("<app id>-data", relative to the working directory) lands in it.
# The chart mounts an emptyDir there (read-only root filesystem).
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --home-dir /var/lib/article-runtime --create-home app
USER 10001:10001
WORKDIR /var/lib/article-runtime

ENV PYTHONUNBUFFERED=1 \
    ARTICLE_RUNTIME_WEB_PORT=6066
EXPOSE 6066

# The slim image has no curl: ask /health/ with the standard library.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health/' % os.environ.get('ARTICLE_RUNTIME_WEB_PORT', '6066'), timeout=4)"]

CMD ["article-runtime-worker"]
