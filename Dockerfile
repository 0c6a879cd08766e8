# Colophon on Node 20 (package.json "engines" and .nvmrc say the same). Build: docker build -t colophon .   Run: docker run -p 8080:8080 -v colophon-data:/data -v /comics:/comics:ro colophon
FROM node:20-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production \
    COLOPHON_DATA_DIR=/data \
    COLOPHON_SERVER__HOST=0.0.0.0 \
    COLOPHON_SERVER__PORT=8080
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:8080/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/cli.js", "serve"]
