# syntax=docker/dockerfile:1
# Build: compile TypeScript with the dev dependencies.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
RUN npm run build

# Run: production dependencies only, as the unprivileged `node` user.
FROM node:24-slim
ENV NODE_ENV=production \
    HUB_PORT=8080 \
    HUB_DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
COPY openapi.yaml ./
# Google's Discovery documents: the Google sandbox routes and validates by them.
COPY discovery ./discovery
# Only used when DATABASE_URL is unset (embedded PGlite); mount a volume here to keep it.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# node:24-slim has no curl; Node's own fetch probes liveness.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HUB_PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself (graceful drain, then pools close).
CMD ["node", "dist/src/main.js"]
