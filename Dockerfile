# syntax=docker/dockerfile:1
# Build stage: install production dependencies (better-sqlite3 is a native module).
FROM node:22-bookworm AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Runtime stage: slim Debian image, non-root, data on a volume.
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/data \
    SAMPLE_DATA_DIR=/app/data/sample \
    PORT=3000
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY src ./src
COPY data/sample ./data/sample
RUN ln -s /app/bin/carrier-verify /usr/local/bin/carrier-verify \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
STOPSIGNAL SIGTERM
CMD ["carrier-verify", "serve"]
