# Argus image: the compiled server (dist/server) and the built console (dist/frontend) on Node 24 LTS,
# production dependencies only. The WASM TimescaleDB, tsx and every test tool are devDependencies:
# they exist in the build stage and never reach the run stage.
# No `# syntax=` line: it makes BuildKit fetch a frontend image, which an offline build cannot.

# the public Node image; an offline build passes a local stand-in (ops/deploy/offline-images.sh)
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# ---- build: everything, devDependencies included -------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
# the Angular CLI asks about analytics on first use; an image build has nobody to answer
ENV NG_CLI_ANALYTICS=false
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
COPY agent/package.json agent/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- run: compiled output and production dependencies of the server workspace -------------------
FROM ${NODE_IMAGE} AS run
ENV NODE_ENV=production PORT=3000 HOSTNAME=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
COPY agent/package.json agent/
# iputils ping for the network checks' ping type: it opens an ICMP datagram socket, which the
# container's net.ipv4.ping_group_range admits for the unprivileged user (docker-compose.prod.yml).
# Debian gives the file cap_net_raw, which would make ping take the raw socket instead, and refuse to
# start at all in a container without NET_RAW: removed, so the app needs no capability to ping
RUN apt-get update && apt-get install -y --no-install-recommends iputils-ping \
  && setcap -r /usr/bin/ping && rm -rf /var/lib/apt/lists/*
# only the backend workspace runs here: the console is already compiled into dist/frontend
RUN npm ci --omit=dev --workspace=backend --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist/server dist/server
COPY --from=build /src/dist/frontend dist/frontend
COPY ops/docker-entrypoint.sh ops/
# `npm run reset-password` works in the container as on a checkout (README "Operations"): the compiled script
RUN npm pkg set scripts.reset-password="node dist/server/ops/reset-password.js" \
  && mkdir -p agent-dist && chown node:node agent-dist
# the node image's unprivileged user; nothing in /app is writable by it except agent-dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=900s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["sh", "ops/docker-entrypoint.sh"]
