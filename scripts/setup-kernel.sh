#!/usr/bin/env bash
# Register the Jupyter kernel(s) that conf.py names (polybook.execution.kernel) into the
# virtualenv, pointing at its own Python, so `polybook build eval` finds them with no
# per-user state. Idempotent. The packages themselves come from requirements/kernel.txt
# (installed by `make setup`).
#   scripts/setup-kernel.sh [VENV]     (default .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv}
PY="$VENV/bin/python"
for name in $("$PY" -c 'from pathlib import Path; from polybook.config import load_config
print(" ".join(sorted(set(load_config(Path("conf.py")).execution.kernels.values()))))'); do
    "$PY" -m ipykernel install --sys-prefix --name "$name" --display-name "Python (polybook: $name)" >/dev/null
    echo "kernel $name -> $VENV/share/jupyter/kernels/$name"
done
# Prove the pair imports on this machine (CPU only is fine).
"$PY" -c 'import mxnet, torch, torchvision, d2l; print("kernel env: mxnet", mxnet.__version__, "torch", torch.__version__, "torchvision", torchvision.__version__, "d2l", d2l.__version__)'
