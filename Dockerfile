# The Verdict sidecar. `docker compose up` runs it behind a TLS proxy with a persistent volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VERDICT_DATA=/data
WORKDIR /app
COPY pyproject.toml README.md ./
COPY protocol ./protocol
COPY sidecar ./sidecar
COPY vtt-module ./vtt-module
RUN pip install --no-cache-dir . && useradd --system --uid 10001 verdict && mkdir /data && chown verdict /data
USER verdict
VOLUME /data
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz').status != 200)"
CMD ["verdict", "serve", "--host", "0.0.0.0", "--port", "8765", "--log-format", "json"]
