# The gateway image: the same code runs as a gateway replica (npm start) or the indexer (npm run indexer).
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts=false
COPY . .
ENV HOST=0.0.0.0 PORT=8080 NODE_ENV=production
EXPOSE 8080
CMD ["node", "--max-semi-space-size=64", "--import", "tsx", "main.ts"]
