# What every process image shares: Node.js, a user without privileges, the health check and the
# start command; with APT_PACKAGES, the Debian packages a process needs (the sales service's
# Chromium and fonts). `npm run images` builds it twice (ledgerline/runtime:20 and
# ledgerline/runtime-chromium:20); each process's image (process.Dockerfile) adds its own files.
#   NODE_IMAGE  ledgerline/node:20 (local, no registry needed) or node:20-bookworm-slim
# Under the vfs storage driver each step copies the whole file system: the metadata comes before
# the package layer, so one step (USER) follows it.
ARG NODE_IMAGE=ledgerline/node:20
FROM ${NODE_IMAGE}
ARG APT_PACKAGES=""
ENV NODE_ENV=production HOST=0.0.0.0
WORKDIR /app
# liveness of the process itself; readiness (its database and NATS) is /readyz
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# start.sh (written per process by `npm run images`) execs node, which is then PID 1 and gets the
# SIGTERM of `docker stop` or Kubernetes (graceful shutdown)
CMD ["sh", "/app/start.sh"]
RUN if [ -n "$APT_PACKAGES" ]; then \
      apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $APT_PACKAGES \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
 && useradd --uid 10001 --user-group --home-dir /app --no-create-home ledgerline \
 && mkdir -p /app/data && chown 10001:10001 /app/data
USER 10001:10001
