#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test: host-side checks, then every in-guest test in one boot.
# One line per test, then "N passed, N failed".  Exits non-zero on any
# failure, on a guest that did not finish, or on a kernel splat in the
# console log.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${KSCRUB_OUT:-$top/qemu/out}
mkdir -p "$out"
pass=0
failn=0

result() {	# result NAME PASS|FAIL [why]
	printf '%-44s %s%s\n' "$1" "$2" "${3:+  ($3)}"
	if [ "$2" = PASS ]; then pass=$((pass + 1)); else failn=$((failn + 1)); fi
}

# --- host checks -----------------------------------------------------------
tree=${KDIR:?KDIR not set}/source

check_patches_apply() {
	local t why=
	t=$(mktemp -d)
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$t" --strip-components=1 \
		--wildcards '*/mm/*' '*/include/*' '*/fs/*' '*/drivers/base/*' \
		'*/arch/x86/include/*' '*/lib/*' 2>/dev/null
	for p in "$top"/hook-patch/*.patch; do
		[ -e "$p" ] || continue
		patch -d "$t" -p1 --quiet --forward --batch < "$p" > "$t.log" 2>&1 ||
			{ why="$(basename "$p") does not apply"; break; }
	done
	rm -rf "$t" "$t.log"
	[ -z "$why" ] && result host/patches-apply PASS || result host/patches-apply FAIL "$why"
}

check_checkpatch() {
	local files=() f errs=0 why=
	for f in "$top"/hook-patch/*.patch; do [ -e "$f" ] && files+=("$f"); done
	for f in "$top"/module/*.[ch]; do [ -e "$f" ] && files+=("-f" "$f"); done
	if [ ${#files[@]} -eq 0 ]; then
		result host/checkpatch PASS "nothing to check yet"
		return
	fi
	local cp="$tree/scripts/checkpatch.pl"
	set -- "${files[@]}"
	while [ $# -gt 0 ]; do
		local arg=()
		if [ "$1" = -f ]; then arg=(-f "$2"); shift 2; else arg=("$1"); shift; fi
		# CHECKs (--strict) are shown; ERRORs and WARNINGs fail.
		perl "$cp" --strict --no-tree --quiet --no-summary \
			--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG "${arg[@]}" \
			> "$out/checkpatch.log" 2>/dev/null
		if grep -qE '^(ERROR|WARNING):' "$out/checkpatch.log"; then
			errs=$((errs + 1))
			why="${arg[-1]##*/}"
			grep -A3 -E '^(ERROR|WARNING):' "$out/checkpatch.log" | head -20 | sed 's/^/    /'
		fi
	done
	[ $errs = 0 ] && result host/checkpatch PASS || result host/checkpatch FAIL "$why"
}

check_no_kernel_tree() {
	# The kernel tree lives in the cache, never in the repository.
	if git -C "$top" ls-files | grep -qE '^(mm|kernel|include/linux)/'; then
		result host/no-kernel-tree-in-repo FAIL
	else
		result host/no-kernel-tree-in-repo PASS
	fi
}

check_kconfig_snippet() {
	# Kconfig.snippet is the text the series adds to mm/Kconfig.
	local line bad=
	while IFS= read -r line; do
		case "$line" in '#'*|'') continue ;; esac
		grep -qxF "+$line" "$top"/hook-patch/*.patch 2>/dev/null ||
			{ bad=$line; break; }
	done < "$top/Kconfig.snippet"
	[ -z "$bad" ] && result host/kconfig-snippet-in-series PASS ||
		result host/kconfig-snippet-in-series FAIL "not in the series: $bad"
}

check_patches_apply
check_kconfig_snippet
check_checkpatch
check_no_kernel_tree

# --- guest -----------------------------------------------------------------
log=$out/test-console.log
if bash "$top/qemu/run-guest.sh" test "$log" ${KSCRUB_CMDLINE:-}; then
	result guest/boot-and-finish PASS
else
	result guest/boot-and-finish FAIL "see $log"
fi

# Per-test verdicts, with the test's own output for failures.
while IFS= read -r line; do
	set -- ${line#KSCRUB-TEST: }
	name=$1 verdict=$2
	if [ "$verdict" = FAIL ]; then
		result "guest/$name" FAIL
		grep -F "[$name]" "$log" | tail -n 15 | sed 's/^/    /'
	elif [ "$verdict" = SKIP ]; then
		printf '%-44s SKIP\n' "guest/$name"
	else
		result "guest/$name" PASS
	fi
done < <(grep -a '^KSCRUB-TEST: ' "$log" 2>/dev/null | tr -d '\r')

# A test that began and never reported hung the guest or crashed it.
last=$(grep -a '^KSCRUB-BEGIN: ' "$log" 2>/dev/null | tail -n1 | tr -d '\r')
last=${last#KSCRUB-BEGIN: }
if [ -n "$last" ] && ! grep -aq "^KSCRUB-TEST: $last " "$log"; then
	result "guest/$last" FAIL "did not finish"
fi

# Kernel splats fail the run, whichever test was running.
splat=$(grep -anE 'BUG:|WARNING:|Oops|[Bb]ad page|Call Trace|KASAN|UBSAN|Kernel panic' "$log" 2>/dev/null | head -n 5)
if [ -n "$splat" ]; then
	result guest/no-kernel-splat FAIL
	echo "$splat" | sed 's/^/    /'
	awk 'BEGIN { t = "boot" } /^KSCRUB-BEGIN:/ { t = $2 } /BUG:|WARNING:|Oops|[Bb]ad page|Call Trace|KASAN|UBSAN|Kernel panic/ { print "    during test: " t; exit }' "$log"
else
	result guest/no-kernel-splat PASS
fi

echo "$pass passed, $failn failed"
[ $failn = 0 ]
