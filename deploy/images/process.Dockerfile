# One process of the platform (gateway, sales, purchase, finance, accounting or settings): its
# bundle (dist/), the third-party packages it imports (node_modules/) and its start.sh, on the
# shared runtime (runtime.Dockerfile). `npm run images` prepares the context of each process.
# DATA_DIR (/app/data) is the one folder the process writes.
ARG RUNTIME_IMAGE=ledgerline/runtime:20
FROM ${RUNTIME_IMAGE}
COPY . /app
