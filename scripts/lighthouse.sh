#!/usr/bin/env bash
# Lighthouse 12 (mobile settings: a phone's viewport, simulated slow 4G and a 4x slower
# CPU) on a hosted form page, with Debian's Chromium: prints the Performance,
# Accessibility and Best Practices scores and where the full report went.
#
#   scripts/lighthouse.sh http://127.0.0.1:8080/f/<short_id>?lang=de
#
# Lighthouse is not one of the project's pinned tools (it is large, and no test needs
# it): this installs it once under target/lighthouse. Needs Node 20 and `chromium`.
set -euo pipefail
url="${1:?usage: scripts/lighthouse.sh URL}"
cd "$(dirname "$0")/.."
tools=target/lighthouse
if [ ! -x "$tools/node_modules/.bin/lighthouse" ]; then
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-audit --no-fund --loglevel=error lighthouse@12 >&2
fi
report="$tools/report-$(date +%Y%m%d-%H%M%S).json"
CHROME_PATH="${CHROME_PATH:-$(command -v chromium)}" "$tools/node_modules/.bin/lighthouse" "$url" \
  --quiet --output=json --output-path="$report" \
  --only-categories=performance,accessibility,best-practices \
  --chrome-flags="--headless=new --no-sandbox --disable-gpu" >&2
node -e '
  const r = require(process.argv[1]);
  for (const [id, c] of Object.entries(r.categories)) console.log(`${c.title}: ${c.score.toFixed(2)}`);
  const failed = Object.values(r.audits).filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary");
  for (const a of failed) console.log(`  not passed: ${a.id} (${a.title})`);
' "$PWD/$report"
echo "report: $report"
