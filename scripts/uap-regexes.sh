#!/usr/bin/env bash
# The uap-core User-Agent rules that core/hosted/device.rs embeds (core/hosted/uap/, whose
# README says which version is there): converts the vendored regexes.yaml to the
# regexes.json the build reads, so that neither the build nor the service needs a YAML
# reader.
#
#   scripts/uap-regexes.sh           # regexes.json again from the vendored regexes.yaml
#   scripts/uap-regexes.sh 0.19.0    # first vendor uap-core 0.19.0 from the npm registry
#                                    # (its regexes.yaml and LICENSE), then convert
#
# Needs python3 with PyYAML (`python3 -c 'import yaml'`), and npm for a new version.
# Every value in the rules must be a string: an unquoted value that YAML would read as a
# number or a boolean stops the conversion instead of changing type in the JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=core/hosted/uap

if [ $# -gt 0 ]; then
  version="$1"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "uap-core@$version" >/dev/null && tar xzf "uap-core-$version.tgz")
  cp "$tmp/package/regexes.yaml" "$tmp/package/LICENSE" "$dir/"
  echo "vendored uap-core $version: now say so in $dir/README.md and CHANGELOG.md" >&2
fi

python3 - "$dir/regexes.yaml" "$dir/regexes.json" <<'PY'
import json, sys

import yaml

source, target = sys.argv[1], sys.argv[2]
with open(source, encoding="utf-8") as f:
    rules = yaml.safe_load(f)
for list_name in ("user_agent_parsers", "os_parsers", "device_parsers"):
    for i, parser in enumerate(rules[list_name]):
        for key, value in parser.items():
            if not isinstance(value, str):
                sys.exit(f"{source}: {list_name}[{i}].{key} is {value!r}, not a string")
# One key a line: a new version's changes read as a diff.
with open(target, "w", encoding="utf-8") as f:
    json.dump(rules, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(target, {k: len(v) for k, v in rules.items()}, file=sys.stderr)
PY
