# The app as `pip install ".[mix,shared]"` installs it: the wheel (code, bundled data, templates, static files,
# the database migrations in app/migrations/) and its dependencies at the exact releases the tests
# ran with (constraints.txt; pyproject.toml holds only ranges), no test dependencies, no source tree.
# Build: docker build -t tokvis .    Run: docker run -p 8000:8000 -v tokvis-data:/data tokvis
#
# One image for every role. By default it runs `tokvis serve` on the embedded SQLite store in /data.
# deploy/compose.yaml runs the same image three ways against one PostgreSQL database
# (TOKVIS_DATABASE_URL): `tokvis db upgrade` once, then `tokvis serve` (servers) and
# `tokvis worker` (job workers). See "Serving a class" in README.md.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY tokenizers_core ./tokenizers_core
COPY app ./app
COPY templates ./templates
COPY static ./static
RUN pip wheel --no-cache-dir --no-deps -w /dist .

FROM python:3.11-slim
# TOKVIS_DB is the embedded default: the SQLite file on the /data volume. Setting
# TOKVIS_DATABASE_URL to a PostgreSQL URL replaces it (and jobs then run on `tokvis worker`).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TOKVIS_DB=/data/store.sqlite3
COPY --from=build /dist /dist
COPY constraints.txt /dist/
RUN pip install --no-cache-dir -c /dist/constraints.txt "$(ls /dist/*.whl)[mix,shared]" && rm -rf /dist
RUN useradd --create-home --uid 10001 tokvis && mkdir /data && chown tokvis /data
USER tokvis
WORKDIR /home/tokvis
EXPOSE 8000
VOLUME ["/data"]
# The server answers only the host names it is configured for (a DNS-rebinding page on another
# domain gets 400): 127.0.0.1, localhost and [::1] always, which is what a browser on this
# machine sends through `-p 8000:8000`. A deployment sets its own name(s) when it runs the image:
#   docker run -e TOKVIS_ALLOWED_HOSTS="tokvis.example.org" ...
# (space- or comma-separated; "*" answers every host, only behind a proxy that checks Host).
ENV TOKVIS_ALLOWED_HOSTS=""
# `tokvis serve` serves through app/serving.py: a connection that has not sent a request's line
# and headers within TOKVIS_HEADER_TIMEOUT seconds is closed (slowloris); idle kept-alive ones
# after 5 s.
ENV TOKVIS_HEADER_TIMEOUT=10
# The default command: one server. Compose overrides it with `tokvis worker --concurrency 2` for
# the workers and `tokvis db upgrade` for the one-off migration.
CMD ["tokvis", "serve", "--host", "0.0.0.0", "--port", "8000"]
