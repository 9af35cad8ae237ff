#!/usr/bin/env bash
# Downloads the FMCSA files the appliance mirrors, on a machine with internet access, for
# `carrier-verify import --dir` on an air-gapped network (docs/data.md "Air-gapped networks").
#
#   scripts/download-fmcsa.sh OUT_DIR [FILE_ID ...]     (default: every file below)
#
# Beside each <id>.csv it writes <id>.csv.meta (JSON): the URL, the download time, the portal's
# Last-Modified (X-SODA2-Truth-Last-Modified when sent: the regulator's date of the data, which
# becomes the version's `as_of` and the start of its freshness limit), the portal's own row count
# (checked against the file at import) and the file's SHA-256 (checked at import too).
# Needs bash, curl and sha256sum. FMCSA_BASE_URL replaces the portal (an internal mirror).
set -euo pipefail

BASE="${FMCSA_BASE_URL:-https://data.transportation.gov}"
BASE="${BASE%/}"
# every file of every dataset (src/sync/sources.ts; a test keeps this list equal to it)
ALL_IDS=(
  az4n-8mr2
  6eyk-hxee qh9u-swkp 6sqe-dvqs 9mw4-x3tu sa6p-acbp 2emp-mxtb
  inys-ebih c5y8-a4uz 3uet-3z4i yu5v-wbh6 wb4f-neki 6snj-ed7q
  nakq-58th x96h-evps xe5s-wca7 dm5j-zc6c e67p-xyd5
  kjg3-diqy rbkj-cgst 4wxs-vbns 4y6x-dmck h9zy-gjn8 m3ry-qcip h3zn-uid9
  p2mt-9ige
  8mt8-2mdr
  fx4q-ay7w wt8s-2hbx
)

if [ $# -lt 1 ]; then
  echo "usage: $0 OUT_DIR [FILE_ID ...]" >&2
  exit 2
fi
OUT="$1"
shift
IDS=("$@")
[ ${#IDS[@]} -eq 0 ] && IDS=("${ALL_IDS[@]}")
mkdir -p "$OUT"

header() { # the value of header $1 in the header dump $2 (last answer), or empty
  tr -d '\r' <"$2" | awk -v h="$(echo "$1" | tr '[:upper:]' '[:lower:]')" '
    BEGIN { FS = ": " } { k = tolower($1) } k == h { sub(/^[^:]*: /, ""); v = $0 } END { print v }'
}

failed=0
for id in "${IDS[@]}"; do
  file="$OUT/$id.csv"
  headers="$(mktemp)"
  url="$BASE/api/views/$id/rows.csv?accessType=DOWNLOAD"
  echo "$id: downloading $url" >&2
  if ! curl -fsSL --retry 3 -D "$headers" -o "$file.part" "$url"; then
    echo "$id: download failed (a daily change log answers 404 until it is published)" >&2
    rm -f "$file.part" "$headers"
    failed=1
    continue
  fi
  mv "$file.part" "$file"
  modified="$(header x-soda2-truth-last-modified "$headers")"
  [ -z "$modified" ] && modified="$(header last-modified "$headers")"
  rm -f "$headers"
  modified_iso=""
  [ -n "$modified" ] && modified_iso="$(date -u -d "$modified" +%Y-%m-%dT%H:%M:%SZ)"
  count="$(curl -fsS --retry 3 "$BASE/resource/$id.json?\$select=count(*)" |
    grep -o '[0-9][0-9]*' | head -n 1 || true)"
  sha="$(sha256sum "$file" | cut -d' ' -f1)"
  {
    printf '{"url":"%s","downloaded_at":"%s"' "$url" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    [ -n "$modified_iso" ] && printf ',"last_modified":"%s"' "$modified_iso"
    [ -n "$count" ] && printf ',"count":%s' "$count"
    printf ',"sha256":"%s"}\n' "$sha"
  } >"$file.meta"
  echo "$id: $(wc -c <"$file") bytes, last modified ${modified_iso:-unknown}, ${count:-no} portal count" >&2
done
exit "$failed"
