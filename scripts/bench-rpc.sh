#!/usr/bin/env bash
# Per-call cost of every unary RPC against gRPC health Check on the same server (issue 13); see
# scripts/bench-rpc.py for what is measured and its options. Builds the release binary unless
# --binary is given. Needs h2load (Debian nghttp2-client; `make tools` installs it).
#
#   scripts/bench-rpc.sh                       # 3 rounds of h2load -n 30000 -c 4 -m 16
#   scripts/bench-rpc.sh --rounds 5 --peer     # and the python-chess gRPC peer
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ " $* " != *" --binary "* ]]; then
  cargo build --release -p arbiter-server --bin arbiter >&2
fi
exec python3 scripts/bench-rpc.py "$@"
