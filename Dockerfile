# carrier-verify: build in one stage, run compiled JavaScript with production dependencies only.
# No `# syntax=` line: the build needs no frontend image from a registry (air-gapped builds work
# with the classic builder and BuildKit alike). Base images and npm packages can come from
# internal mirrors (README, "Air-gapped install"):
#   docker build --build-arg NODE_IMAGE=registry.internal/node:24-bookworm \
#                --build-arg NODE_SLIM_IMAGE=registry.internal/node:24-bookworm-slim \
#                --build-arg NPM_REGISTRY=https://npm.internal/ -t carrier-verify .
ARG NODE_IMAGE=node:24-bookworm
ARG NODE_SLIM_IMAGE=node:24-bookworm-slim

# Build stage: every dependency (better-sqlite3 compiles its native module here), TypeScript → dist/.
FROM ${NODE_IMAGE} AS build
ARG NPM_REGISTRY
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund ${NPM_REGISTRY:+--registry=$NPM_REGISTRY}
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime stage: slim Debian, production dependencies only, no compiler, no TypeScript, non-root.
FROM ${NODE_SLIM_IMAGE}
ARG NPM_REGISTRY
# MALLOC_ARENA_MAX=2: glibc keeps a malloc arena per thread that ever allocated (up to 8 per
# core) and gives little back; imports run many short-lived threads (README, "Memory and disk").
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    DATA_DIR=/data \
    SAMPLE_DATA_DIR=/app/data/sample \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: nothing is compiled or fetched here; the one native module comes from the
# build stage (same base image, same Node ABI), without its sources and object files.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund ${NPM_REGISTRY:+--registry=$NPM_REGISTRY} \
 && npm cache clean --force
COPY --from=build /app/node_modules/better-sqlite3/build/Release/better_sqlite3.node \
     ./node_modules/better-sqlite3/build/Release/better_sqlite3.node
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
COPY data/sample ./data/sample
RUN rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 && ln -s /app/bin/carrier-verify /usr/local/bin/carrier-verify \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
CMD ["carrier-verify", "serve"]
