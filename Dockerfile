# The article-runtime worker image: `article-runtime-worker` runs every Faust agent and serves
# the web views (/health/, /counters/, ...) on $ARTICLE_RUNTIME_WEB_PORT (6066).
# Kubernetes: helm/article-runtime/. Local: docker-compose.yml.
#
# Two stages: the build stage has the compilers and ICU headers and turns the lock into wheels
# (PyICU is compiled there); the runtime stage installs those wheels and nothing else, so no
# compiler, header or pip cache reaches the image. The base is pinned to Debian bookworm because
# the compiled PyICU links against that release's ICU (libicu72), and to the newest Python the
# whole lock supports (the Makefile's PYTHONS; make test runs on the same one).

FROM python:3.13-slim-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libicu-dev g++ pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, from the lock (exact versions, hashes checked): this layer is rebuilt only
# when the lock changes, not at every code change.
COPY requirements.lock .
RUN pip wheel --no-cache-dir --require-hashes -r requirements.lock -w /wheels
# Then the project itself, as a wheel that carries its prompts and schemas as package data.
COPY pyproject.toml README.md ./
COPY prompts prompts
COPY schemas schemas
COPY article_runtime article_runtime
COPY streams streams
COPY agents agents
RUN pip wheel --no-cache-dir --no-deps . -w /wheels

FROM python:3.13-slim-bookworm
# ICU, and Hunspell with its dictionaries (debian-packages.txt: the repair oracles).
COPY debian-packages.txt /tmp/debian-packages.txt
RUN apt-get update \
    && sed -e 's/#.*//' /tmp/debian-packages.txt | xargs apt-get install -y --no-install-recommends libicu72 \
    && rm -rf /var/lib/apt/lists/* /tmp/debian-packages.txt
# Wheels only: --no-index means nothing is resolved or fetched here, and --no-deps installs
# exactly the set the lock produced in the build stage.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --no-deps /wheels/*.whl \
    && python -m compileall -q "$(python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"

# Non-root. /var/lib/article-runtime is the only writable place: the worker starts there, so
# Faust's data directory ("<app id>-data", relative to the working directory) lands in it.
# The chart mounts an emptyDir there (read-only root filesystem).
RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --home-dir /var/lib/article-runtime --create-home app
USER 10001:10001
WORKDIR /var/lib/article-runtime

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    ARTICLE_RUNTIME_WEB_PORT=6066
EXPOSE 6066

# The slim image has no curl: ask /health/ with the standard library.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health/' % os.environ.get('ARTICLE_RUNTIME_WEB_PORT', '6066'), timeout=4)"]

CMD ["article-runtime-worker"]
