#!/usr/bin/env bash
# Regenerate the PNG figures in chapters/img from their SVG sources.
#
# Every chapters/img/NAME.png that has a chapters/img/NAME.svg next to it is
# re-rendered from the SVG.  To create a PNG for an SVG that has none yet,
# pass the SVG (or its base name) as an argument:
#
#     scripts/figures.sh                       # refresh all existing PNGs
#     scripts/figures.sh chapters/img/foo.svg  # (re)create foo.png as well
#
# PNGs are rendered at twice the width the chapter displays them at (so they
# stay sharp on high-DPI screens), on a white background.  Display widths are
# listed in DISPLAY_WIDTH below; a figure not listed there is rendered at the
# natural size of its SVG.
#
# Requires rsvg-convert from the Debian/Ubuntu package librsvg2-bin.
set -euo pipefail

# Display width in px (the :width: used in the chapters) per figure.
declare -A DISPLAY_WIDTH=(
  [frontends]=300
)

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
img="$root/chapters/img"

if ! command -v rsvg-convert >/dev/null 2>&1; then
  echo "error: rsvg-convert not found; install the package librsvg2-bin" >&2
  echo "       (e.g. sudo apt-get install librsvg2-bin)" >&2
  exit 1
fi

# Collect base names: existing PNGs with an SVG source, plus any arguments.
declare -A todo=()
shopt -s nullglob
for png in "$img"/*.png; do
  name="$(basename "$png" .png)"
  [[ -f "$img/$name.svg" ]] && todo[$name]=1
done
for arg in "$@"; do
  name="$(basename "$arg")"
  name="${name%.svg}"
  name="${name%.png}"
  if [[ ! -f "$img/$name.svg" ]]; then
    echo "error: no SVG source $img/$name.svg" >&2
    exit 1
  fi
  todo[$name]=1
done

if [[ ${#todo[@]} -eq 0 ]]; then
  echo "nothing to do: no PNG in $img has an SVG source" >&2
  exit 0
fi

for name in $(printf '%s\n' "${!todo[@]}" | sort); do
  svg="$img/$name.svg"
  png="$img/$name.png"
  size_args=()
  if [[ -n "${DISPLAY_WIDTH[$name]:-}" ]]; then
    size_args=(--width "$((2 * DISPLAY_WIDTH[$name]))")
  fi
  tmp="$(mktemp "$img/.$name.XXXXXX.png")"
  trap 'rm -f "$tmp"' EXIT
  rsvg-convert --format png --background-color white "${size_args[@]}" \
    --output "$tmp" "$svg"
  mv -f "$tmp" "$png"
  chmod 644 "$png"
  trap - EXIT
  echo "rendered ${png#"$root"/} from ${svg#"$root"/}"
done
