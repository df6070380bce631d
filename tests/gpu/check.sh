#!/bin/bash
# The one script that proves the GPU path on a machine with an NVIDIA GPU
# (an H200 with 16 cores, say), run once, in under 5 minutes there:
#
#   1. prerequisites: cmake, pkg-config, cJSON, OpenBLAS, nvcc (versions)
#   2. build from this checkout outside the output directory (CUDA must be
#      detected; the architectures configure chose are printed)
#   3. nvidia-smi -q -d CLOCK,POWER,PERFORMANCE captured before the run
#   4. the agent on every device, sizes 1000, 4096, 8192, every dtype;
#      check_records.py checks each record (%peak >= 0.3 at n >= 4096,
#      split-K in fp32, warm-up, CUDA Graph batches, energy, ...) and
#      prints every row with its spread, reliable, throttled and energy
#   5. when a Python with CUDA torch is found: bench/gpu_vs_torch --quick,
#      agent/torch within [0.85, 1.15] per dtype at n = 4096
#
# One summary line per check ("gpu check: PASS|FAIL|SKIP what: ...").
#
#   tests/gpu/check.sh [--agent PATH] [--reader PATH]
#                      [--sizes 1000,4096,8192] [--out DIR]
#
# --agent skips the build and checks that binary (CTest's gpu test does
# this with the tree it built). --reader runs every record through ctl's
# reader too (tests/agent/validate_records: docs/schema.json and the
# rules that join fields), as ctl run will read them (CTest gives it).
# Output and records go to DIR (default: a
# new directory under /tmp, printed at the end); the build goes to a
# directory of its own beside it.
#
# Exit status: 0 every check passed; 1 a check failed; 2 usage error, a
# missing prerequisite or the build failed; 77 no usable GPU here
# (nvidia-smi missing, failing or listing no GPU), which CTest reports as
# skipped.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
agent=""
reader=""
sizes="1000,4096,8192"
out=""
iters=20
t_start=$(date +%s)
failed=0

usage() {
	sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'
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
pass() { say "PASS $*"; }
fail() { say "FAIL $*"; failed=1; }

# --- is there a GPU? ---------------------------------------------------
if ! command -v nvidia-smi >/dev/null 2>&1; then
	say "SKIP: nvidia-smi not found: no NVIDIA driver on this machine" >&2
	exit 77
fi
if ! smi=$(nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$smi"; then
	say "SKIP: nvidia-smi -L found no usable GPU: ${smi:-no output}" >&2
	exit 77
fi
say "found: ${smi//$'\n'/; }"

python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
[ -n "$out" ] || out=$(mktemp -d /tmp/bf-gpu-check.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# --- 1. prerequisites ----------------------------------------------------
PATH="$PATH:/usr/local/cuda/bin"
missing=""
v_cmake=$(cmake --version 2>/dev/null | head -n 1) || missing="$missing cmake"
v_pc=$(pkg-config --version 2>/dev/null) || missing="$missing pkg-config"
v_cjson=$(pkg-config --modversion libcjson 2>/dev/null) || missing="$missing cJSON"
v_blas=$(pkg-config --modversion openblas 2>/dev/null) || missing="$missing OpenBLAS"
v_nvcc=$(nvcc --version 2>/dev/null | grep -i release) || missing="$missing nvcc"
if [ -n "$missing" ] && [ -z "$agent" ]; then
	fail "prerequisites: missing:$missing (tools/install-deps installs" \
		"the Debian packages; nvcc is in the CUDA toolkit)"
	exit 2
fi
pass "prerequisites: ${v_cmake:-no cmake}; pkg-config ${v_pc:-none};" \
	"cJSON ${v_cjson:-none}; OpenBLAS ${v_blas:-none}; nvcc ${v_nvcc:-none};" \
	"caps $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sort -u | tr '\n' ' ')"

# --- 2. build -------------------------------------------------------------
if [ -z "$agent" ]; then
	build=$(mktemp -d /tmp/bf-gpu-build.XXXXXX)
	t0=$(date +%s)
	if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DBF_BUILD_CONTROLLER=OFF -DBF_BUILD_TESTS=OFF \
		>"$out/configure.log" 2>&1; then
		tail -20 "$out/configure.log" >&2
		fail "configure (log: $out/configure.log)"
		exit 2
	fi
	if ! grep -q '^BF_WITH_CUDA:BOOL=ON$' "$build/CMakeCache.txt"; then
		grep 'benchfleet' "$out/configure.log" >&2
		fail "configure: CMake did not detect the CUDA toolkit (BF_WITH_CUDA is OFF)"
		exit 2
	fi
	if ! cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1; then
		tail -30 "$out/build.log" >&2
		fail "build (log: $out/build.log)"
		exit 2
	fi
	pass "build in $build, $(($(date +%s) - t0)) s:" \
		"$(grep -o 'CUDA architectures .*' "$out/configure.log" | head -n 1)"
	agent="$build/bin/agent"
fi
if [ ! -x "$agent" ]; then
	fail "build: no agent binary at $agent"
	exit 2
fi

# --- 3. the GPU's state ---------------------------------------------------
if nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$out/nvidia-smi-q.txt" 2>&1; then
	pass "nvidia-smi -q -d CLOCK,POWER,PERFORMANCE in $out/nvidia-smi-q.txt"
else
	fail "nvidia-smi -q -d CLOCK,POWER,PERFORMANCE (see $out/nvidia-smi-q.txt)"
fi

# --- 4. run and check -------------------------------------------------------
say "running $agent --device all --sizes $sizes --dtypes fp32,fp16,bf16,tf32"
t0=$(date +%s)
timeout 240 "$agent" --device all --sizes "$sizes" \
	--dtypes fp32,fp16,bf16,tf32 --iters "$iters" \
	>"$out/records.ndjson" 2>"$out/stderr.txt"
rc=$?
say "agent exit status $rc after $(($(date +%s) - t0)) s; records in $out/records.ndjson"
if [ -s "$out/stderr.txt" ]; then
	say "agent stderr:"
	cat "$out/stderr.txt"
fi
if "$python" "$root/tests/gpu/check_records.py" "$out/records.ndjson" \
	--rc "$rc" --iters "$iters"; then
	pass "records: every check and GEMM row as required"
else
	fail "records: the problems are listed above"
fi
if [ -n "$reader" ]; then
	if "$reader" <"$out/records.ndjson" >"$out/reader.txt"; then
		pass "ctl's reader takes every record ($(tail -1 "$out/reader.txt"))"
	else
		cat "$out/reader.txt"
		fail "ctl's reader refuses records (listed above)"
	fi
fi

# --- 5. against torch -----------------------------------------------------
export BF_BENCH_OUT="$out/bench"
if "$python" "$root/bench/gpu_vs_torch" --quick --agent "$agent" \
	>"$out/gpu_vs_torch.log" 2>&1; then
	verdict=$("$python" - "$out/bench/gpu.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
if d.get("status") != "ran":
    print("SKIP torch: " + str(d.get("reason")))
    sys.exit(0)
bad, shown = [], []
for r in d["results"]:
    if r["n"] != 4096:
        continue
    ratio = r.get("ratio")
    shown.append(f"{r['dtype']} {ratio:.3f}" if ratio else f"{r['dtype']} n/a")
    if ratio is None or not 0.85 <= ratio <= 1.15:
        bad.append(r["dtype"])
t = d.get("torch", {})
what = (f"agent/torch at n=4096: {', '.join(shown)} (torch {t.get('torch')},"
        f" its cuBLAS {t.get('cublas_version')})")
print(("FAIL " if bad else "PASS ") + what +
      (f"; outside [0.85, 1.15]: {', '.join(bad)}" if bad else ""))
PY
)
	case "$verdict" in
	FAIL*) say "$verdict"; failed=1 ;;
	*) say "$verdict" ;;
	esac
else
	tail -5 "$out/gpu_vs_torch.log"
	fail "bench/gpu_vs_torch --quick (log: $out/gpu_vs_torch.log)"
fi

elapsed=$(($(date +%s) - t_start))
if [ "$failed" -eq 0 ]; then
	pass "GPU path proved in ${elapsed} s; output in $out"
	exit 0
fi
say "FAILED after ${elapsed} s; output in $out"
exit 1
