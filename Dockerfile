# syntax=docker/dockerfile:1
# Argus image: the compiled server (dist/server) and the built console (dist/frontend) on Node 20,
# production dependencies only. The WASM TimescaleDB, tsx and every test tool are devDependencies:
# they exist in the build stage and never reach the run stage.

# ---- build: everything, devDependencies included -------------------------------------------------
FROM node:20.20.2-bookworm-slim AS build
WORKDIR /src
# the Angular CLI asks about analytics on first use; an image build has nobody to answer
ENV NG_CLI_ANALYTICS=false
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- run: compiled output and production dependencies of the server workspace -------------------
FROM node:20.20.2-bookworm-slim AS run
ENV NODE_ENV=production PORT=3000 HOSTNAME=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
COPY backend/package.json backend/
COPY frontend/package.json frontend/
# only the backend workspace runs here: the console is already compiled into dist/frontend
RUN npm ci --omit=dev --workspace=backend --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist/server dist/server
COPY --from=build /src/dist/frontend dist/frontend
COPY ops/docker-entrypoint.sh ops/
RUN mkdir -p agent-dist && chown node:node agent-dist
# the node image's unprivileged user; nothing in /app is writable by it except agent-dist
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=900s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["sh", "ops/docker-entrypoint.sh"]
