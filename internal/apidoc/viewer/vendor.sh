#!/bin/sh
# Installs the viewer from the committed lockfile and copies its browser
# bundle into dist/, which is committed and embedded into avaindex (run by
# `go generate ./internal/apidoc`; needs npm and the npm registry, the
# binary needs neither). --ignore-scripts: swagger-ui-dist depends on a
# package whose install script reports usage over the network.
set -eu
cd "$(dirname "$0")"
SCARF_ANALYTICS=false npm ci --ignore-scripts --no-audit --no-fund --silent
mkdir -p dist
for f in swagger-ui-bundle.js swagger-ui-bundle.js.LICENSE.txt swagger-ui.css LICENSE NOTICE; do
  cp node_modules/swagger-ui-dist/"$f" dist/"$f"
done
echo "viewer: swagger-ui-dist $(node -p 'require("./node_modules/swagger-ui-dist/package.json").version') -> $(pwd)/dist"
