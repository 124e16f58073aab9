# syntax=docker/dockerfile:1
# The base image is pinned by digest (the multi-arch index of node:24-slim), so a build is the same build
# tomorrow. To update it deliberately: `docker buildx imagetools inspect node:24-slim` (or `docker pull
# node:24-slim && docker inspect --format '{{index .RepoDigests 0}}' node:24-slim`) prints the current digest;
# put it in both FROM lines, rebuild, and run `npm test` (test/deploy checks that both stages are pinned).

# Build: compile TypeScript with the dev dependencies.
FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# The Google and Microsoft sandboxes are workspace packages: npm links them, and their commands, from these.
COPY packages/google-sandbox/package.json ./packages/google-sandbox/
COPY packages/google-sandbox/bin ./packages/google-sandbox/bin
COPY packages/microsoft-sandbox/package.json ./packages/microsoft-sandbox/
COPY packages/microsoft-sandbox/bin ./packages/microsoft-sandbox/bin
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY packages/google-sandbox ./packages/google-sandbox
COPY packages/microsoft-sandbox ./packages/microsoft-sandbox
COPY src ./src
COPY bench ./bench
COPY console ./console
RUN npm run build

# Run: production dependencies only, as the unprivileged `node` user (uid 1000).
FROM node:24-slim@sha256:a9f5f7c91a432850b2a8a7797adf5eadb6c733ceed61167806cee7ea7fbc29df
ENV NODE_ENV=production \
    HUB_PORT=8080 \
    HUB_DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY packages/google-sandbox/package.json ./packages/google-sandbox/
COPY packages/google-sandbox/bin ./packages/google-sandbox/bin
COPY packages/microsoft-sandbox/package.json ./packages/microsoft-sandbox/
COPY packages/microsoft-sandbox/bin ./packages/microsoft-sandbox/bin
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
# The admin console's browser files (served from memory under /admin/assets/<digest>/).
COPY --from=build /app/dist/console ./dist/console
COPY openapi.yaml ./
# The Google sandbox (deploy/compose.yaml's `sandbox` profile): its build, and Google's Discovery documents,
# by which it routes and validates.
COPY --from=build /app/packages/google-sandbox/dist ./packages/google-sandbox/dist
COPY packages/google-sandbox/discovery ./packages/google-sandbox/discovery
# Only used with HUB_ALLOW_EMBEDDED_DB=true (production refuses embedded PGlite otherwise); mount a volume here.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# node:24-slim has no curl; Node's own fetch probes liveness.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HUB_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations are a step of their own, run once before the replicas (deploy/compose.yaml's `migrate` service, the
# Kubernetes Job): the same image with the command `node dist/src/cli/migrate.js`. Serving replicas there set
# HUB_MIGRATE_ON_START=false; a lone container keeps the default and migrates at start.
# Node runs as PID 1 and handles SIGTERM itself (graceful drain, then pools close).
CMD ["node", "dist/src/main.js"]
