# One process of the platform (gateway, sales, purchase, finance, accounting or settings): its
# bundle (dist/, the third-party packages in it), the packages it still imports (node_modules/: those
# that read files of their own, decision 257) and its start.sh, on the
# shared runtime (runtime.Dockerfile). `npm run images` prepares the context of each process.
# DATA_DIR (/app/data) is the one folder the process writes.
ARG RUNTIME_IMAGE=ledgerline/runtime:20
FROM ${RUNTIME_IMAGE}
COPY . /app
