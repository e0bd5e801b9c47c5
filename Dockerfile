# The image that `inferbench k8s` Jobs run (README: "inferbench k8s"). Build it where the npm registry is
# reachable and push it where the cluster pulls from:
#   docker build -t registry.example.com/inferbench:0.1.0 . && docker push registry.example.com/inferbench:0.1.0
# The Job's pods run a shell script (sh) and `kubectl cp` copies their results out with tar: both come
# with the Debian-based node images.

# Build: every dependency (TypeScript among them); `npm ci` runs `prepare`, which builds dist/.
FROM node:20 AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm ci

# Run: the built CLI and the runtime dependencies only.
FROM node:20
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY profiles ./profiles
COPY schema ./schema
USER node
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/cli/main.js"]
CMD ["--help"]
