# syntax=docker/dockerfile:1
# modelgate's image: Node 24 slim, production dependencies only, a non-root user, and the `modelgate`
# command as its entry point, which starts Node with the flags `npm start` uses (src/runtime/node-flags.ts;
# test/unit/deploy-files.test.ts checks they agree). Build: docker build -t modelgate:0.1.0 .
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the runtime dependencies need none.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:${NODE_VERSION}-slim
ENV NODE_ENV=production \
    MODELGATE_CONFIG=/etc/modelgate/modelgate.yaml
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
# The SQLite database (when no PostgreSQL URL is configured) lives in /app/data, owned by the user that runs.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
# Node's own fetch: the slim image has no curl. /healthz answers without a key.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/app/bin/modelgate.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
