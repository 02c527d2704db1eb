#!/usr/bin/env bash
# A worked session against a running Loreweave: build a small world, fork an era, edit it,
# and show that the main line is unchanged. Needs curl and jq, and LW and KEY set:
#   export LW=http://127.0.0.1:8090/api/v1 KEY=lw_live_...
set -euo pipefail
auth=(-H "Authorization: Bearer $KEY" -H "Content-Type: application/json")
# post prints the answer, or on failure says what failed and why (the error body) on stderr.
post() {
  local out
  if ! out=$(curl -sS --fail-with-body "${auth[@]}" -d "$2" "$LW$1"); then
    echo "POST $1 failed: $out" >&2
    return 1
  fi
  printf '%s\n' "$out"
}

W=$(post /worlds '{"name": "The Shattered Isles", "genre": "fantasy"}' | jq -r .id)

# A character card with a section and properties.
C=$(post /worlds/$W/documents '{"name": "Aerendyl", "documentType": "card"}' | jq -r .id)
post /worlds/$W/documents/$C/content '{"ops": [
  {"op": "card.setAliases", "aliases": ["The Tide-Queen"]},
  {"op": "card.setProperty", "key": "Born", "value": "Year 212 of the Drowning"},
  {"op": "card.addSection", "title": "Biography", "body": "Raised by **storm-priests** on Vharn."}
]}' | jq -c '{version, created}'

# A timeline with two events.
T=$(post /worlds/$W/documents '{"name": "History", "documentType": "timeline"}' | jq -r .id)
post /worlds/$W/documents/$T/content '{"ops": [
  {"op": "timeline.addEvent", "label": "The Sundering", "dateMs": -62135596800000, "precision": "century"},
  {"op": "timeline.addEvent", "label": "Aerendyl crowned", "dateMs": 0, "precision": "year"}
]}' | jq -c '{version, created}'

# A map with a pin linked to the card.
M=$(post /worlds/$W/documents '{"name": "The Isles", "documentType": "map"}' | jq -r .id)
post /worlds/$W/documents/$M/content "{\"ops\": [
  {\"op\": \"map.setImage\", \"url\": \"https://example.com/isles.png\", \"width\": 2048, \"height\": 1536},
  {\"op\": \"map.addPin\", \"x\": 640, \"y\": 410, \"label\": \"Vharn\", \"documentId\": \"$C\"}
]}" | jq -c '{version, created}'

# An animator with clips.
A=$(post /worlds/$W/documents '{"name": "Leviathan", "documentType": "animator"}' | jq -r .id)
post /worlds/$W/documents/$A/content '{"ops": [
  {"op": "animator.setModel", "url": "https://example.com/leviathan.glb", "name": "Leviathan"},
  {"op": "animator.setClips", "clips": [{"id": "swim"}, {"id": "breach"}]},
  {"op": "animator.setActiveClip", "clipId": "swim"}
]}' | jq -c '{version}'

# Fork an era (copies nothing) and change things there only.
E=$(post /worlds/$W/eras '{"name": "After the Flood"}' | jq -r .id)
post "/worlds/$W/documents/$C/content?era=$E" '{"ops": [{"op": "card.rename", "name": "Aerendyl the Drowned"}]}' | jq -c '{version}'
post "/worlds/$W/documents/$T/content?era=$E" '{"ops": [{"op": "timeline.addEvent", "label": "The Flood", "dateMs": 31536000000}]}' | jq -c '{version}'

echo "--- main line"
curl -sS --fail-with-body "${auth[@]}" "$LW/worlds/$W/documents/$C" | jq -r .content.text
curl -sS --fail-with-body "${auth[@]}" "$LW/worlds/$W/documents/$T" | jq -r '.content.data.events[].label'
echo "--- era"
curl -sS --fail-with-body "${auth[@]}" "$LW/worlds/$W/documents/$C?era=$E" | jq -r .content.text
curl -sS --fail-with-body "${auth[@]}" "$LW/worlds/$W/documents/$T?era=$E" | jq -r '.content.data.events[].label'
