#!/usr/bin/env bash
# run.sh: build and run the ptyhost side-by-side benchmark.
#
#   bench/run.sh [ptybench flags]      e.g. bench/run.sh -rounds 7 -size-mib 8
#
# Installs the node peer's pinned packages (node-pty builds from source with
# the machine's gcc, python3 and make) if they are missing, builds the Go
# driver into bench/out/, and runs it. A peer that cannot be set up is
# reported as unavailable in the table, with the reason; it does not stop
# the run. Flags are ptybench's: bench/run.sh -help lists them.
set -euo pipefail
# Relative paths in the flags (-cpuprofile, -out) stay relative to the
# caller's directory: only the setup steps run inside bench/.
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/out"

if command -v npm >/dev/null 2>&1; then
	node="$here/node"
	if [ ! -d "$node/node_modules/node-pty" ] || [ ! -d "$node/node_modules/@xterm/headless" ] ||
		[ "$node/package-lock.json" -nt "$node/node_modules/.package-lock.json" ]; then
		# node-gyp reads headers from the installed node when they are there,
		# instead of downloading them.
		if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
			export npm_config_nodedir=/usr
		fi
		echo "run.sh: npm ci in bench/node (builds node-pty from source)" >&2
		if ! (cd "$node" && npm ci --no-audit --no-fund --loglevel=error >&2); then
			echo "run.sh: npm ci failed: the node-pty + xterm peer will be reported unavailable" >&2
		fi
	fi
else
	echo "run.sh: npm not found: the node-pty + xterm peer will be reported unavailable" >&2
fi

(cd "$here" && go build -tags ptyhost_xvt -o out/ptybench ./cmd/ptybench)
exec "$here/out/ptybench" -out "$here/out" -node-dir "$here/node" "$@"
