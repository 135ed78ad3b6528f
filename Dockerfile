# One image for every process of the monorepo; docker-compose.yml picks the entry point.
FROM node:20-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-dejavu-core && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages packages
COPY apps apps
RUN npm ci --no-audit --no-fund
COPY scripts scripts
COPY tsconfig.base.json tsconfig.json ./
# same V8 old-space cap as npm start (scripts/node-flags.ts, docs/decisions.md)
ENV NODE_ENV=production HOST=0.0.0.0 NODE_OPTIONS=--max-old-space-size=160
CMD ["node", "--import", "tsx", "apps/gateway/src/main.ts"]
