# The Verdict sidecar, installed from its wheel (which carries the Foundry module) and run as a non-root user.
#   docker build -t verdict .
#   docker run -d -p 127.0.0.1:8765:8765 -v verdict-data:/data verdict
# As it stands the image fits Foundry on the same machine: paste http://localhost:8765/module/module.json.
# On a server, set the URL clients reach it at (VERDICT_PUBLIC_URL) and the Foundry origin: see compose.yaml.

# Stage 1: the wheel, built from the same files as `pip wheel .` in a checkout.
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY protocol ./protocol
COPY sidecar ./sidecar
COPY vtt-module ./vtt-module
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# Stage 2: the wheel installed as a user installs it; no source tree in the image.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VERDICT_DATA=/data VERDICT_PUBLIC_URL=http://localhost:8765
COPY --from=wheel /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin verdict \
    && mkdir /data && chown verdict /data
USER verdict
WORKDIR /data
VOLUME /data
EXPOSE 8765
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8765/healthz').status != 200)"
CMD ["verdict", "serve", "--host", "0.0.0.0", "--port", "8765", "--log-format", "json", "--allow-origin", "http://localhost:30000", "--allow-origin", "http://127.0.0.1:30000"]
