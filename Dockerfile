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
ENV NODE_ENV=production HOST=0.0.0.0
CMD ["node", "--import", "tsx", "apps/gateway/src/main.ts"]
