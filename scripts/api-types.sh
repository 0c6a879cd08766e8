#!/bin/sh
# The web app's API types, generated from the server's own OpenAPI description (never written by hand):
# a schema change that breaks a screen fails `npm run typecheck`.
set -e
cd "$(dirname "$0")/.."
mkdir -p web/.api
if [ -f dist/cli.js ] && [ -z "$(find src -newer dist/cli.js -name '*.ts' | head -n 1)" ]; then
  node dist/cli.js openapi --output web/.api/openapi.json
else
  npx tsx src/cli.ts openapi --output web/.api/openapi.json
fi
npx openapi-typescript web/.api/openapi.json -o web/src/api/schema.gen.ts --silent
