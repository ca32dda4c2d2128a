#!/usr/bin/env bash
# System packages the HTML build and its browser tests need (Debian bookworm, as root):
#   chromium        headless browser driven by Playwright in tests/test_browser*.py
#   fonts-noto-cjk  glyphs for the ja/zh pages in screenshots
#   libjs-mathjax + fonts-mathjax  MathJax served from the site itself (no CDN at run time)
# Idempotent: a fast no-op when everything is installed already.
set -euo pipefail
packages=(chromium fonts-noto-cjk libjs-mathjax fonts-mathjax)
exec "$(dirname "$0")/apt-ensure.sh" "${packages[@]}"
