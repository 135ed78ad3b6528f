# NATS with JetStream from Debian's packages on the local base image, for the container test
# stage and for trials; production runs the official Helm chart's cluster (docs/deploy.md).
ARG BASE_IMAGE=ledgerline/debian:bookworm
FROM ${BASE_IMAGE}
ENV NATS_PORT=4222 NATS_MONITOR_PORT=8222
# the monitoring endpoint answers ok once JetStream is up (bash's /dev/tcp: no HTTP client here)
HEALTHCHECK --interval=2s --timeout=3s --retries=30 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/$NATS_MONITOR_PORT && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q '\"ok\"' <&3"]
CMD ["sh", "-c", "exec /usr/sbin/nats-server -js -sd /data -p $NATS_PORT -m $NATS_MONITOR_PORT"]
# the package makes the system user nats
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nats-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown nats:nats /data
USER nats
