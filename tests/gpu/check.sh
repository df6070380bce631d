#!/bin/bash
# The agent on a machine with an NVIDIA GPU, end to end: build it from this
# checkout (CUDA detected by CMake, also in /usr/local/cuda; the build must
# come out with the CUDA backend), run every device with every dtype, and
# check each record with check_records.py. Takes a few minutes.
#
#   tests/gpu/check.sh [--agent PATH] [--reader PATH] [--sizes 1024,4096]
#                      [--out DIR]
#
# --agent skips the build and checks that binary (CTest's gpu test does
# this with the tree it built). --reader runs every record through ctl's
# reader too (tests/agent/validate_records: docs/schema.json and the rules
# that join fields), as ctl run will read them. Output and records go to
# DIR (default: a new directory under /tmp, printed at the end).
#
# Exit status: 0 every check passed; 1 a check failed; 2 usage error or
# the build failed; 77 no usable GPU here (nvidia-smi missing or failing),
# which CTest reports as skipped.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
agent=""
reader=""
sizes="1024,4096"
out=""
iters=20

usage() {
	sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--agent) agent=${2:?--agent needs a path}; shift 2 ;;
	--reader) reader=${2:?--reader needs a path}; shift 2 ;;
	--sizes) sizes=${2:?--sizes needs a list}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "gpu check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

say() { echo "gpu check: $*"; }

# --- is there a GPU? ---------------------------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1; then
	say "skipped: nvidia-smi not found: no NVIDIA driver on this machine" >&2
	exit 77
fi
if ! smi=$(nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$smi"; then
	say "skipped: nvidia-smi -L found no usable GPU: ${smi:-no output}" >&2
	exit 77
fi
say "found: ${smi//$'\n'/; }"

python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
[ -n "$out" ] || out=$(mktemp -d /tmp/bf-gpu-check.XXXXXX)
mkdir -p "$out"

# --- build --------------------------------------------------------------
if [ -z "$agent" ]; then
	build="$out/build"
	say "building in $build"
	if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DBF_BUILD_CONTROLLER=OFF -DBF_BUILD_TESTS=OFF \
		>"$out/configure.log" 2>&1; then
		tail -20 "$out/configure.log" >&2
		say "FAILED: cmake configure (log: $out/configure.log);" \
			"missing packages? tools/install-deps installs them" >&2
		exit 2
	fi
	if ! grep -q '^BF_WITH_CUDA:BOOL=ON$' "$build/CMakeCache.txt"; then
		grep 'benchfleet' "$out/configure.log" >&2
		say "FAILED: CMake did not detect the CUDA toolkit (BF_WITH_CUDA is OFF)" >&2
		exit 2
	fi
	if ! cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1; then
		tail -30 "$out/build.log" >&2
		say "FAILED: build (log: $out/build.log)" >&2
		exit 2
	fi
	agent="$build/bin/agent"
fi
if [ ! -x "$agent" ]; then
	say "FAILED: no agent binary at $agent" >&2
	exit 2
fi

# --- run and check -------------------------------------------------------
say "running $agent --device all --sizes $sizes --dtypes fp32,fp16,bf16,tf32"
start=$(date +%s)
timeout 600 "$agent" --device all --sizes "$sizes" \
	--dtypes fp32,fp16,bf16,tf32 --iters "$iters" \
	>"$out/records.ndjson" 2>"$out/stderr.txt"
rc=$?
say "agent exit status $rc after $(($(date +%s) - start)) s; records in $out/records.ndjson"
if [ -s "$out/stderr.txt" ]; then
	say "agent stderr:"
	cat "$out/stderr.txt"
fi
checked=0
if [ -n "$reader" ]; then
	say "ctl's reader on every record ($reader)"
	if ! "$reader" <"$out/records.ndjson" >"$out/reader.txt"; then
		cat "$out/reader.txt" >&2
		say "FAILED: ctl's reader refuses records (above)" >&2
		checked=1
	fi
fi
"$python" "$root/tests/gpu/check_records.py" "$out/records.ndjson" \
	--rc "$rc" --iters "$iters" || checked=1
exit "$checked"
