# syntax=docker/dockerfile:1
# Two images from one file:
#   docker build -t hub .                      the production image (the last stage, built by default): the Hub,
#                                              its production dependencies, nothing of the vendor emulators
#   docker build --target demo -t hub-demo .   the demo and the vendor sandboxes (packages/*), for trying the
#                                              Hub offline; never for production
# The base image is pinned by digest (the multi-arch index of node:24-slim), so a build is the same build
# tomorrow. To update it deliberately: `docker buildx imagetools inspect node:24-slim` (or `docker pull
# node:24-slim && docker inspect --format '{{index .RepoDigests 0}}' node:24-slim`) prints the current digest;
# put it in every FROM line, rebuild, and run `npm test` (test/deploy checks that every stage is pinned).

# Build: compile TypeScript with the dev dependencies, the workspace packages (the sandboxes) included.
FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The workspace packages: npm links them, and their commands (.dockerignore leaves out their tests and builds).
COPY packages ./packages
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY bench ./bench
COPY console ./console
# openapi.yaml: the build renders it into the HTML API reference the Hub serves at /docs (dist/docs).
COPY openapi.yaml redocly.yaml ./
RUN npm run build

# The production dependencies: the sandboxes are dev dependencies, and without packages/ npm installs no
# workspace package at all, so none of their code or dependencies can reach the production image.
FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df AS production-deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev && npm cache clean --force

# The demo (`npm run demo`'s Hub and sandboxes in one process) and the sandboxes on their own (deploy/compose.yaml's
# `sandbox` profile runs `node packages/google-sandbox/dist/main.js`): the build stage as it is, as `node`.
FROM build AS demo
ENV HUB_DATA_DIR=/app/data \
    DEMO_HOST=localhost
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080 8090 8091
CMD ["node", "dist/src/demo.js"]

# Production: the compiled Hub and its production dependencies only, as the unprivileged `node` user (uid 1000).
FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df AS production
ENV NODE_ENV=production \
    HUB_PORT=8080 \
    HUB_DATA_DIR=/app/data
WORKDIR /app
COPY package.json ./
COPY --from=production-deps /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# The admin console's browser files (served from memory under /admin/assets/<digest>/).
COPY --from=build /app/dist/console ./dist/console
# The API reference page (/docs), rendered from openapi.yaml at build time.
COPY --from=build /app/dist/docs ./dist/docs
COPY openapi.yaml ./
# Only used with HUB_ALLOW_EMBEDDED_DB=true (production refuses embedded PGlite otherwise); mount a volume here.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080 9464
# node:24-slim has no curl; Node's own fetch probes liveness.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HUB_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations are a step of their own, run once before the replicas (deploy/compose.yaml's `migrate` service, the
# Kubernetes Job): the same image with the command `node dist/src/cli/migrate.js`. Serving replicas there set
# HUB_MIGRATE_ON_START=false; a lone container keeps the default and migrates at start.
# Node runs as PID 1 and handles SIGTERM itself (graceful drain, then pools close).
CMD ["node", "dist/src/main.js"]
