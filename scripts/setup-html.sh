#!/usr/bin/env bash
# System packages the HTML build and its browser tests need (Debian bookworm, as root):
#   chromium        headless browser driven by Playwright in tests/test_browser*.py
#   fonts-noto-cjk  glyphs for the ja/zh pages in screenshots
#   libjs-mathjax + fonts-mathjax  MathJax served from the site itself (no CDN at run time)
# Idempotent: a fast no-op when everything is installed already.
set -euo pipefail
packages=(chromium fonts-noto-cjk libjs-mathjax fonts-mathjax)
missing=()
for pkg in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "setup-html: missing ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
