# One image for every process of the monorepo; docker-compose.yml picks the entry point.
# Build: TypeScript bundled to JavaScript (npm run build → dist/*.mjs). Run: plain node on a
# maintained LTS, production dependencies only, no TypeScript loader.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.base.json tsconfig.json ./
COPY packages packages
COPY apps apps
COPY scripts scripts
RUN npm ci --no-audit --no-fund && npm run build

FROM node:22-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# the workspaces' package.json files tell npm which third-party packages the bundles import
COPY packages packages
COPY apps apps
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist dist
# same V8 old-space cap as npm start (scripts/node-flags.ts, docs/decisions.md); the image's
# default command is the gateway, but its cap is the services': a deployment running the gateway
# sets NODE_OPTIONS=--max-old-space-size=2048 for it, as docker-compose.yml does
ENV NODE_ENV=production HOST=0.0.0.0 NODE_OPTIONS=--max-old-space-size=160
CMD ["node", "dist/gateway.mjs"]
