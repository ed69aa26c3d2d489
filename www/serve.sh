#!/usr/bin/env bash
# Builds the web playground (release) and serves it on http://127.0.0.1:8080 with the default
# scenario loaded. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
ORRERY_NO_BROWSER=1 source www/tools.sh
exec trunk serve --release --no-autoreload --address 127.0.0.1 --port "${PORT:-8080}"
