# The app, as `make run` starts it (no test dependencies). Build: docker build -t tokvis .
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TOKVIS_DB=/data/store.sqlite3
RUN useradd --create-home --uid 10001 tokvis && mkdir /data && chown tokvis /data
WORKDIR /app
COPY pyproject.toml README.md ./
COPY tokenizers_core ./tokenizers_core
COPY app ./app
COPY templates ./templates
COPY static ./static
RUN pip install --no-cache-dir -e .
USER tokvis
EXPOSE 8000
VOLUME ["/data"]
CMD ["python", "-m", "uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000"]
