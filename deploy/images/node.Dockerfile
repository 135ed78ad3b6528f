# The Node.js runtime image the services build on where no registry is reachable: the locally
# built Debian root file system (ledgerline/debian, made by `npm run images` with debootstrap)
# plus the Node.js binary of the machine that builds it. Where a registry is reachable, the
# services build FROM the official node image instead (service.Dockerfile's NODE_IMAGE).
ARG BASE_IMAGE=ledgerline/debian:bookworm
FROM ${BASE_IMAGE}
COPY node /usr/local/bin/node
RUN node --version
