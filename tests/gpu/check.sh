#!/bin/bash
# The one script that proves the GPU path on a machine with an NVIDIA GPU
# (an H200 with 16 cores, say), run once, in under 5 minutes there, with
# no network (tests/gpu/README.md gives the exact command):
#
#   1. prerequisites: a compiler, cmake, make or else ninja, nvcc. cJSON
#      and pkg-config are not needed (the agent builds the copy in
#      third_party/cjson); OpenBLAS, where this machine has none, comes
#      from the Debian packages tests/gpu/fetch-debs put in
#      tests/gpu/debs/, unpacked into a private root (never into /)
#   2. build from this checkout outside the output directory (CUDA must be
#      detected; the architectures configure chose are printed)
#   3. nvidia-smi -q -d CLOCK,POWER,PERFORMANCE before and after the run,
#      and nvidia-smi dmon (power, clocks, each second) during it
#   4. the agent on every device, sizes 1001, 4096, 8192, every dtype;
#      check_records.py checks each record (%peak >= 0.3 at n >= 4096,
#      split-K in fp32, warm-up, CUDA Graph batches, energy, ...) and
#      prints every row with its verification margin, bandwidth, spread,
#      reliable, throttled and energy
#   5. bench/gpu_vs_torch --quick (within a time limit): agent/torch
#      within [0.85, 1.15] per dtype at n = 4096; its exit 77 (no CUDA
#      torch here) is a SKIP with the reason
#   6. every file it wrote into one archive (--archive, default OUT.tar.gz)
#
# One summary line per check ("gpu check: PASS|FAIL|SKIP what: ..."),
# also in OUT/summary.txt.
#
#   tests/gpu/check.sh [--agent PATH] [--reader PATH]
#                      [--sizes 1001,4096,8192] [--iters N] [--out DIR]
#                      [--archive FILE] [--debs DIR] [--torch-timeout S]
#
# --agent skips the build and checks that binary (CTest's gpu test does
# this with the tree it built). --reader runs every record through ctl's
# reader too (tests/agent/validate_records: docs/schema.json and the
# rules that join fields), as ctl run will read them (CTest gives it).
# Output and records go to DIR (default: a new directory under /tmp,
# printed at the end); the build and the private root go to a directory
# of their own beside it, left out of the archive.
#
# Exit status: 0 every check passed; 1 a check failed; 2 usage error, a
# missing prerequisite or the build failed; 77 no usable GPU here
# (nvidia-smi missing, failing or listing no GPU), which CTest reports as
# skipped.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
agent=""
reader=""
sizes="1001,4096,8192"
out=""
archive=""
debs="$root/tests/gpu/debs"
torch_timeout=90
iters=20
t_start=$(date +%s)
failed=0

usage() {
	sed -n '2,43p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--agent) agent=${2:?--agent needs a path}; shift 2 ;;
	--reader) reader=${2:?--reader needs a path}; shift 2 ;;
	--sizes) sizes=${2:?--sizes needs a list}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--iters) iters=${2:?--iters needs a count}; shift 2 ;;
	--archive) archive=${2:?--archive needs a file}; shift 2 ;;
	--debs) debs=${2:?--debs needs a directory}; shift 2 ;;
	--torch-timeout) torch_timeout=${2:?--torch-timeout needs seconds}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "gpu check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

. "$root/tests/gpu/checklib.sh"
summary=""
say() {
	echo "gpu check: $*"
	[ -z "$summary" ] || echo "gpu check: $*" >>"$summary"
}
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

python=python3
[ -x /usr/bin/python3 ] && ! command -v python3 >/dev/null 2>&1 && python=/usr/bin/python3
[ -n "$out" ] || out=$(mktemp -d /tmp/bf-gpu-check.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)
[ -n "$archive" ] || archive="$out.tar.gz"
summary="$out/summary.txt"
: >"$summary"
work=$(mktemp -d /tmp/bf-gpu-work.XXXXXX)
say "found: ${smi//$'\n'/; }"

# Every file written goes into the archive, whatever the exit.
finish() {
	local rc=$1 elapsed=$(($(date +%s) - t_start))
	if [ "$rc" -eq 0 ]; then
		pass "GPU path proved in ${elapsed} s; output in $out"
	else
		say "FAILED (exit $rc) after ${elapsed} s; output in $out"
	fi
	rmdir "$work" 2>/dev/null # nothing built or unpacked (--agent)
	if a=$(bf_archive "$out" "$archive"); then
		say "$a"
	else
		say "FAIL archive: tar into $archive failed"
	fi
	exit "$rc"
}

# --- 1. prerequisites ----------------------------------------------------
PATH="$PATH:/usr/local/cuda/bin"
missing=""
v_cc=$(${CC:-cc} --version 2>/dev/null | head -n 1) || missing="$missing compiler"
v_cmake=$(cmake --version 2>/dev/null | head -n 1) || missing="$missing cmake"
v_make=$(make --version 2>/dev/null | head -n 1)
v_ninja=$(ninja --version 2>/dev/null)
[ -n "$v_make$v_ninja" ] || missing="$missing make-or-ninja"
v_nvcc=$(nvcc --version 2>/dev/null | grep -i release) || missing="$missing nvcc"
if [ -n "$missing" ] && [ -z "$agent" ]; then
	fail "prerequisites: missing:$missing (nvcc is in the CUDA toolkit;" \
		"CMake and ninja also come with pip)"
	finish 2
fi
# OpenBLAS: the machine's, else Debian's from tests/gpu/fetch-debs in a
# private root, else none (the CPU GEMMs are skipped, with the reason).
blas_flags=()
blas=$(bf_openblas_here)
if [ -n "$blas" ]; then
	blas_note="OpenBLAS: this machine's (${blas%% *} ${blas#* })"
elif [ -z "$agent" ] && u=$(bf_unpack_debs "$debs" "$work/root"); then
	mapfile -t blas_flags < <(bf_openblas_flags "$work/root")
	if [ "${#blas_flags[@]}" -gt 0 ]; then
		libs=$(bf_private_libs "$work/root")
		export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		blas_note="OpenBLAS: Debian's, $u"
	else
		blas_note="OpenBLAS: none (the packages of $debs hold no openblas-pthread): CPU GEMMs skipped"
	fi
else
	blas_note="OpenBLAS: none here and no packages in $debs (tests/gpu/fetch-debs): CPU GEMMs skipped"
fi
gen=()
[ -n "$v_make" ] || gen=(-G Ninja)
pass "prerequisites: ${v_cmake:-no cmake}; ${v_make:-no make}${v_make:+;}" \
	"${v_ninja:+ninja $v_ninja;} nvcc ${v_nvcc:-none}; $blas_note;" \
	"pkg-config $(pkg-config --version 2>/dev/null || echo 'none (not needed)');" \
	"caps $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sort -u | tr '\n' ' ')"

# --- 2. build -------------------------------------------------------------
if [ -z "$agent" ]; then
	build="$work/build"
	t0=$(date +%s)
	if ! cmake "${gen[@]}" -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DBF_BUILD_CONTROLLER=OFF -DBF_BUILD_TESTS=OFF "${blas_flags[@]}" \
		>"$out/configure.log" 2>&1; then
		tail -20 "$out/configure.log" >&2
		fail "configure (log: $out/configure.log)"
		finish 2
	fi
	if ! grep -q '^BF_WITH_CUDA:BOOL=ON$' "$build/CMakeCache.txt"; then
		grep 'benchfleet' "$out/configure.log" >&2
		fail "configure: CMake did not detect the CUDA toolkit (BF_WITH_CUDA is OFF)"
		finish 2
	fi
	if ! cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1; then
		tail -30 "$out/build.log" >&2
		fail "build (log: $out/build.log)"
		finish 2
	fi
	pass "build in $build, $(($(date +%s) - t0)) s:" \
		"$(grep -o 'benchfleet [0-9.]*: agent \[[^]]*\]' "$out/configure.log" | head -n 1)"
	agent="$build/bin/agent"
fi
if [ ! -x "$agent" ]; then
	fail "build: no agent binary at $agent"
	finish 2
fi

# --- 3. the GPU's state, before ----------------------------------------------
if nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$out/nvidia-smi-q-before.txt" 2>&1; then
	pass "nvidia-smi -q -d CLOCK,POWER,PERFORMANCE in $out/nvidia-smi-q-before.txt"
else
	fail "nvidia-smi -q -d CLOCK,POWER,PERFORMANCE (see $out/nvidia-smi-q-before.txt)"
fi

# --- 4. run and check, dmon beside ---------------------------------------------
say "running $agent --device all --sizes $sizes --dtypes fp32,fp16,bf16,tf32,fp8"
nvidia-smi dmon -s pc -o T -d 1 >"$out/dmon.txt" 2>&1 &
dmon=$!
t0=$(date +%s)
timeout 180 "$agent" --device all --sizes "$sizes" \
	--dtypes fp32,fp16,bf16,tf32,fp8 --iters "$iters" --cpu-iters 3 \
	>"$out/records.ndjson" 2>"$out/stderr.txt"
rc=$?
kill "$dmon" 2>/dev/null
wait "$dmon" 2>/dev/null
say "agent exit status $rc after $(($(date +%s) - t0)) s; records in $out/records.ndjson"
if [ -s "$out/stderr.txt" ]; then
	say "agent stderr:"
	cat "$out/stderr.txt"
fi
d=$(bf_dmon_summary "$out/dmon.txt")
if [ "$d" != "no samples" ]; then
	while IFS= read -r line; do pass "during the run (nvidia-smi dmon): $line"; done <<<"$d"
else
	fail "nvidia-smi dmon recorded nothing during the run (see $out/dmon.txt)"
fi
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >"$out/nvidia-smi-q-after.txt" 2>&1
if "$python" "$root/tests/gpu/check_records.py" "$out/records.ndjson" \
	--rc "$rc" --iters "$iters" | tee "$out/check_records.txt"; then
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
timeout "$torch_timeout" "$python" "$root/bench/gpu_vs_torch" --quick \
	--agent "$agent" >"$out/gpu_vs_torch.log" 2>&1
trc=$?
verdict=$(bf_torch_step "$trc" "$out/bench/gpu.json" "$torch_timeout")
if [ -z "$verdict" ]; then
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
fi
case "$verdict" in
FAIL*) tail -5 "$out/gpu_vs_torch.log"; say "$verdict"; failed=1 ;;
*) say "$verdict" ;;
esac

[ "$failed" -eq 0 ] && finish 0
finish 1
