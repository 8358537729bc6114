# syntax=docker/dockerfile:1
# The gateway image: the same code runs as a gateway replica (the default command, as `npm start`) or as
# the indexer (`node --import tsx indexer/main.ts`, docker-compose.yml). TypeScript runs through tsx, a
# runtime dependency: there is nothing to compile, so the build stage checks the types (a type error
# fails the build) and the runtime stage installs the production dependencies only.
#   docker build -t liquidity-gateway .
#   docker run -p 8080:8080 liquidity-gateway     # the embedded defaults: devnet, store under /app/.data
#   docker exec <container> cat /app/.data/internal-token   # the INTERNAL_TOKEN it generated (no -t: no
#                                                           # terminal, so it is in a file, not the logs)

# Node 24 is the Active LTS line (Node 20 ended in April 2026); docs/operations.md "Node versions".
# Pinned by digest: the multi-platform index published for node:24-bookworm-slim on 2026-08-25 (Node
# 24.19.0; docker-library/repo-info). To move on, take the tag's new digest (`docker buildx imagetools
# inspect node:24-bookworm-slim`) and change it here; `--build-arg NODE_IMAGE=node:22-bookworm-slim@sha256:…`
# builds on Node 22.
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# What the runtime copies: the checked sources, without the dev dependencies, tests and benches.
RUN npm run typecheck && rm -rf node_modules test bench

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/app/.data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/ ./
# Sources stay root-owned and read-only to the service; only its data directory is its own.
RUN mkdir -p /app/.data && chown node:node /app/.data
# The image's own non-root user (uid 1000); the embedded PostgreSQL refuses to run as root anyway.
USER node
EXPOSE 8080
# Liveness only (/readyz is readiness: docker-compose.yml checks it instead, and the proxy starts on it).
# The slim image has no curl: node's fetch asks.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=32", "--heap-growing-percent=50", "--no-allocation-site-pretenuring", "--import", "tsx", "main.ts"]
