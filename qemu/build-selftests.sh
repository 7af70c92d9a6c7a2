#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build some of the kernel's own mm selftests (tools/testing/selftests/mm)
# from the test kernel's patched tree, statically linked, for the guest
# (qemu/guest/tests/88-mm-selftests.sh runs them without and with
# kscrubd).  Each test is compiled directly with vm_util.c and
# thp_settings.c against the tree's UAPI headers (headers_install into a
# scratch directory), not with the selftests Makefile: that one builds
# about forty tests, some needing libraries (libnuma, libcap, liburing)
# that the guest does not have.
#
# The result lives in the cache, keyed by a hash of what it is built from
# (the selftest sources, the UAPI headers, this script, the compiler), so
# the patched, unpatched and cost trees share one build and a second run
# builds nothing.  Cold, it takes about 80 s of CPU (headers_install is
# most of it): about a minute on two idle cores, two on a busy host.
#
# Built, and left to the guest to skip when the kernel lacks what they
# need (the guest has the kernel's .config): compaction_test
# (CONFIG_HUGETLBFS), soft-dirty (CONFIG_MEM_SOFT_DIRTY), pagemap_ioctl and
# uffd-unit-tests (CONFIG_USERFAULTFD), ksm_functional_tests (CONFIG_KSM),
# gup_longterm (CONFIG_GUP_TEST).  Not built: migration (libnuma),
# mlock-random-test and memfd_secret (libcap), the hugetlb tests.
#
# usage: build-selftests.sh [KDIR]  (default: what build-kernel.sh prints)
# prints the directory holding the binaries on stdout.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSCRUB_CACHE:-$HOME/.cache/kscrub}
cc=${CC:-gcc}
jobs=${KSCRUB_JOBS:-$(nproc)}
kdir=${1:-$(bash "$top/qemu/build-kernel.sh")}
tree=$(readlink -f "$kdir/source")

log() { echo "build-selftests: $*" >&2; }

tests=(
	cow madv_populate transhuge-stress compaction_test khugepaged
	mremap_test mremap_dontunmap map_fixed_noreplace map_populate
	mlock2-tests mrelease_test droppable split_huge_page_test mkdirty
	soft-dirty pagemap_ioctl uffd-unit-tests ksm_functional_tests
	gup_longterm
)
# The inputs, relative to the tree
inputs=(include/uapi arch/x86/include/uapi tools/include
	tools/testing/selftests/mm tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h mm/gup_test.h)

[ -d "$tree/tools/testing/selftests/mm" ] || { log "no selftests in $tree"; exit 1; }
key=$( {
	(cd "$tree" && find "${inputs[@]}" -type f -print0 | sort -z |
		xargs -0 sha256sum)
	sha256sum < "$0"
	"$cc" --version | head -n1
} | sha256sum | cut -c1-16)
out=$cache/selftests-$key

if [ -f "$out/.kscrub-done" ]; then
	touch "$out"
	echo "$out/bin"
	exit 0
fi

log "building ${#tests[@]} mm selftests into $out"
start=$(date +%s)
# Built in a scratch directory and moved into place when complete, so a
# build that fails or races another leaves no half-built $out
scratch=$(mktemp -d "$cache/selftests-tmp.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
bin=$scratch/out/bin
mkdir -p "$bin"

# UAPI headers of this tree, as the selftests Makefile's KHDR_INCLUDES;
# headers_install needs no .config, and O= keeps the tree clean.
make -C "$tree" O="$scratch/o" -s -j"$jobs" headers_install \
	INSTALL_HDR_PATH="$scratch/hdr" >&2
# check_config.sh's output without liburing: the io_uring cases of cow and
# gup_longterm are left out
echo '// No liburing support found' > "$scratch/local_config.h"

sdir=$tree/tools/testing/selftests/mm
build_one() {	# build_one TEST
	local extra=()
	case $1 in
	uffd-unit-tests) extra=(uffd-common.c) ;;
	# khugepaged.c uses KSFT_SKIP without including kselftest.h
	khugepaged) extra=(-DKSFT_SKIP=4) ;;
	esac
	(cd "$sdir" && "$cc" -static -s -Wall -O2 -U_FORTIFY_SOURCE \
		-I "$scratch" -I "$tree" -isystem "$scratch/hdr/include" \
		-isystem "$tree/tools/include/uapi" \
		"$1.c" vm_util.c thp_settings.c "${extra[@]}" \
		-lrt -lpthread -lm -o "$bin/$1") > "$scratch/$1.log" 2>&1 || {
		log "FAILED to build $1:"
		head -n 20 "$scratch/$1.log" >&2
		return 1
	}
}
export -f build_one log
export cc sdir scratch tree bin
printf '%s\n' "${tests[@]}" | xargs -P "$jobs" -I{} bash -c 'build_one {}'

touch "$scratch/out/.kscrub-done"
mv -T "$scratch/out" "$out" 2>/dev/null || [ -f "$out/.kscrub-done" ] ||
	{ log "cannot move the build to $out"; exit 1; }
log "built in $(( $(date +%s) - start )) s"
# Keep the three most recently used builds (keys are hex, scratch is not)
old=$(ls -1td "$cache"/selftests-[0-9a-f]*/ 2>/dev/null | tail -n +4) || true
for d in $old; do rm -rf "$d"; done
echo "$out/bin"
