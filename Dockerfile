# The Verdict sidecar (the verdict-vtt distribution), installed from its wheel (which carries the Foundry
# module) and run as a non-root user.
#   docker build -t verdict-vtt .
#   docker run -d -p 127.0.0.1:8765:8765 -v verdict-data:/data verdict-vtt
# As it stands the image fits Foundry on the same machine: paste http://localhost:8765/module/module.json
# (the module's URLs follow the address each request came in on). On a server, give the URL clients reach
# it at (-e VERDICT_PUBLIC_URL=https://…) and the Foundry origin: see compose.yaml. The first table's keys are
# in the volume's default-table.keys (readable by the image's user alone), not in the container's log.

# Stage 1: the wheel, built from the same files as `pip wheel .` in a checkout.
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE ./
COPY docs/rules ./docs/rules
COPY protocol ./protocol
COPY sidecar ./sidecar
COPY vtt-module ./vtt-module
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# Stage 2: the wheel installed as a user installs it; no source tree in the image.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VERDICT_DATA=/data
COPY --from=wheel /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels \
    && useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin verdict \
    && mkdir -m 0700 /data && chown verdict /data
USER verdict
WORKDIR /data
VOLUME /data
EXPOSE 8765
# The sidecar's own address, from its data folder: the check follows the port whatever the command says.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s CMD ["verdict", "health"]
CMD ["verdict", "serve", "--host", "0.0.0.0", "--port", "8765", "--log-format", "json", "--allow-origin", "http://localhost:30000", "--allow-origin", "http://127.0.0.1:30000"]
