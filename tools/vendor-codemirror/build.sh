#!/bin/sh
# Builds static/vendor/codemirror/codemirror.js: CodeMirror 6 + Markdown as one
# minified classic script (IIFE) that sets the global `CM`. Needs Node and the
# npm registry only. Installs the exact versions in package-lock.json into a
# temporary directory (nothing is written here; node_modules is never kept),
# bundles entry.js with esbuild, writes codemirror/LICENSE.txt, prints the
# sizes, and regenerates static/vendor/checksums.txt.
# Run it from anywhere:  sh tools/vendor-codemirror/build.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/static/vendor/codemirror"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp "$here/package.json" "$here/package-lock.json" "$here/entry.js" \
   "$here/html-stub.js" "$here/licenses.mjs" "$tmp/"
cd "$tmp"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error

# The exact esbuild command (also quoted in static/vendor/README.md).
./node_modules/.bin/esbuild entry.js --bundle --format=iife --global-name=CM \
  --minify --target=es2020 --legal-comments=eof --charset=utf8 \
  --alias:@codemirror/lang-html=./html-stub.js \
  --banner:js="/* CodeMirror 6 for Loreweave: built by tools/vendor-codemirror/build.sh, licenses in LICENSE.txt */" \
  --metafile=meta.json --log-level=warning --outfile=codemirror.js

# The HTML grammar must not have slipped in (e.g. if lang-markdown changes how
# it imports it).
if grep -q 'node_modules/@codemirror/lang-html\|node_modules/@lezer/html\|node_modules/@codemirror/collab' meta.json; then
  echo "build.sh: lang-html, @lezer/html or collab ended up in the bundle" >&2
  exit 1
fi

mkdir -p "$out"
cp codemirror.js "$out/codemirror.js"
node licenses.mjs meta.json node_modules "$out/LICENSE.txt"

min=$(wc -c < "$out/codemirror.js")
gz=$(gzip -9n < "$out/codemirror.js" | wc -c)
echo "codemirror.js: $min bytes minified, $gz bytes gzip -9 (budget 153600)"
if [ "$gz" -gt 153600 ]; then
  echo "build.sh: over the 150 KB gzip budget" >&2
  exit 1
fi

cd "$root/static/vendor"
find . -type f ! -name README.md ! -name checksums.txt | LC_ALL=C sort | sed 's|^\./||' \
  | xargs sha256sum > checksums.txt
sha256sum -c --quiet checksums.txt
echo "static/vendor/checksums.txt updated"
