# PostgreSQL 15 from Debian's packages on the local base image, for the container test stage and
# for trials (mount a volume at /var/lib/ledgerline-postgres to keep the data); production uses a
# managed or operator-run cluster (docs/deploy.md). Metadata first:
# under the vfs storage driver every step after the package layer copies it whole.
ARG BASE_IMAGE=ledgerline/debian:bookworm
FROM ${BASE_IMAGE}
ENV PGDATA=/var/lib/ledgerline-postgres/data PGPORT=5432 PATH=/usr/lib/postgresql/15/bin:$PATH
HEALTHCHECK --interval=2s --timeout=3s --retries=30 CMD ["sh", "-c", "pg_isready -h 127.0.0.1 -p $PGPORT -U postgres"]
CMD ["/usr/local/bin/postgres-entrypoint.sh"]
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
# the cluster is made at the first start (postgres-entrypoint.sh), not by the package
RUN mkdir -p /etc/postgresql-common && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
 && apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/ledgerline-postgres /var/run/postgresql && chown postgres:postgres /var/lib/ledgerline-postgres /var/run/postgresql
USER postgres
