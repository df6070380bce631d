# The parts of tests/gpu/check.sh that need no GPU, as functions it
# sources (and tests/gpu/test_checker.py runs on their own). Bash.
#
# BF_SYSROOT (default empty): a prefix put before the system paths
# looked at, so that a test can make "this machine" one without OpenBLAS.

# What OpenBLAS this machine has for a build, on stdout: "pkg-config
# 0.3.21", "files <include dir> <library>" (cblas.h and libopenblas.so
# where CMake's find_path/find_library look), or nothing.
bf_openblas_here() {
	local v h l f
	if [ -z "${BF_SYSROOT:-}" ] && v=$(pkg-config --modversion openblas 2>/dev/null); then
		echo "pkg-config $v"
		return 0
	fi
	for f in "${BF_SYSROOT:-}"/usr/include/cblas.h "${BF_SYSROOT:-}"/usr/include/*/cblas.h \
		"${BF_SYSROOT:-}"/usr/include/openblas/cblas.h "${BF_SYSROOT:-}"/usr/local/include/cblas.h; do
		[ -e "$f" ] && { h=${f%/cblas.h}; break; }
	done
	for f in "${BF_SYSROOT:-}"/usr/lib*/libopenblas.so "${BF_SYSROOT:-}"/usr/lib/*/libopenblas.so \
		"${BF_SYSROOT:-}"/usr/local/lib*/libopenblas.so; do
		[ -e "$f" ] && { l=$f; break; }
	done
	[ -n "${h:-}" ] && [ -n "${l:-}" ] && echo "files $h $l"
	return 0
}

# Unpacks every .deb of DEBDIR into ROOT (dpkg-deb -x; ar and tar where
# dpkg-deb is missing). Says what it unpacked on stdout; returns 1 when
# DEBDIR holds no .deb or one does not unpack.
bf_unpack_debs() {
	local dir=$1 root=$2 d n=0 t
	mkdir -p "$root" || return 1
	for d in "$dir"/*.deb; do
		[ -e "$d" ] || continue
		if command -v dpkg-deb >/dev/null 2>&1; then
			dpkg-deb -x "$d" "$root" || return 1
		else
			t=$(mktemp -d) || return 1
			(cd "$t" && ar x "$d" && tar -xf data.tar.* -C "$root") || { rm -rf "$t"; return 1; }
			rm -rf "$t"
		fi
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || return 1
	echo "unpacked $n package(s) from $dir into $root"
}

# The CMake flags that make the build use the OpenBLAS unpacked under
# ROOT (Debian's openblas-pthread layout: the alternatives' links are made
# by dpkg's postinst, not in the package), on stdout one per line;
# nothing when ROOT has none.
bf_openblas_flags() {
	local root=$1 h l
	h=$(ls -d "$root"/usr/include/*/openblas-pthread 2>/dev/null | head -n 1)
	l=$(ls "$root"/usr/lib/*/openblas-pthread/libopenblas.so 2>/dev/null | head -n 1)
	[ -n "$h" ] && [ -e "$h/cblas.h" ] && [ -n "$l" ] || return 0
	echo "-DBF_OPENBLAS_INCLUDE_DIR=$h"
	echo "-DBF_OPENBLAS_LIBRARY=$l"
}

# The library folders of ROOT the agent needs at run time (OpenBLAS's,
# and the multiarch one for libgfortran where this machine lacks it),
# joined by ':'.
bf_private_libs() {
	local root=$1 p=""
	for d in "$root"/usr/lib/*/openblas-pthread; do
		[ -d "$d" ] && p="$p${p:+:}$d"
	done
	if ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q 'libgfortran[.]so[.]5'; then
		for d in "$root"/usr/lib/*-linux-gnu; do
			[ -d "$d" ] && p="$p${p:+:}$d"
		done
	fi
	echo "$p"
}

# nvidia-smi dmon's output (-s pc -o T: time, gpu, pwr, gtemp, mtemp,
# mclk, pclk) summarised per GPU on stdout: samples, power mean and max,
# SM clock min and max, memory clock. "no samples" when there are none.
bf_dmon_summary() {
	awk '
	/^#/ {
		if (!cols) { h = $0; sub(/^# */, "", h); k = split(h, a, " "); for (i = 1; i <= k; i++) col[a[i]] = i }
		cols = 1; next
	}
	NF < 3 { next }
	{
		g = $(col["gpu"]); p = $(col["pwr"]); c = $(col["pclk"]); m = $(col["mclk"])
		if (p !~ /^[0-9.]+$/) next
		n[g]++; s[g] += p; if (p > pm[g]) pm[g] = p
		if (c ~ /^[0-9]+$/) { if (!(g in cmin) || c < cmin[g]) cmin[g] = c; if (c > cmax[g]) cmax[g] = c }
		if (m ~ /^[0-9]+$/) mc[g] = m
	}
	END {
		for (g in n) printf "gpu %s: %d samples, power mean %.0f W max %.0f W, SM clock %s-%s MHz, memory clock %s MHz\n", g, n[g], s[g] / n[g], pm[g], cmin[g], cmax[g], mc[g]
		if (!length(n)) print "no samples"
	}' "$1"
}

# The torch comparison's verdict from bench/gpu_vs_torch's exit status RC
# and its JSON file: 77 (no CUDA torch here, or no GPU) a SKIP with its
# reason, 124 a FAIL for the timeout, another non-zero a FAIL; 0 leaves
# the verdict to the caller (an empty line).
bf_torch_step() {
	local rc=$1 json=$2 limit=$3 why
	case "$rc" in
	0) echo "" ;;
	77)
		why=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("reason"))' "$json" 2>/dev/null)
		echo "SKIP torch: ${why:-bench/gpu_vs_torch skipped without a reason}" ;;
	124 | 137) echo "FAIL torch: bench/gpu_vs_torch ran past its ${limit} s limit" ;;
	*) echo "FAIL torch: bench/gpu_vs_torch exited $rc" ;;
	esac
}

# Every file under OUT into the one archive FILE (tar, gzip), on stdout
# what it holds.
bf_archive() {
	local out=$1 file=$2
	tar -czf "$file" -C "$(dirname "$out")" "$(basename "$out")" || return 1
	echo "archive $file: $(tar -tzf "$file" | grep -vc '/$') file(s), $(du -k "$file" | cut -f1) KiB"
}
