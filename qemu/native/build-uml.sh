#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a User-mode Linux kernel (ARCH=um) from the same cached, patched
# tree as the guest kernel (qemu/build-kernel.sh --tree-only), out of tree
# in a cached directory of its own, $cache/uml-<key>.  The key hashes the
# tree's key, the UML fragment and the series' options.  Named uml-*, not
# build-*, so that build-kernel.sh's pruning leaves it alone.
#
# prints the build directory (the UML binary is ./linux in it, and it is
# the KDIR for the modules).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/qemu/native
cache=${KSCRUB_CACHE:-$HOME/.cache/kscrub}
jobs=${KSCRUB_JOBS:-$(nproc)}

log() { echo "build-uml: $*" >&2; }

tree=$(bash "$top/qemu/build-kernel.sh" --tree-only)

snippet_opts() {
	sed -n 's/^config \([A-Z0-9_]*\).*/CONFIG_\1=y/p' "$top/Kconfig.snippet"
}

key=$( {
	basename "$tree"
	cat "$here/uml.config"
	snippet_opts
	echo "uml-v1"
} | sha256sum | cut -c1-16)
build=$cache/uml-$key

if [ -f "$build/.kscrub-done" ] && [ -e "$build/source" ]; then
	touch "$build"
	log "cached build $build"
	echo "$build"
	exit 0
fi

rm -rf "$build"
mkdir -p "$build"
frag=$build/kscrub-uml.config
{ cat "$here/uml.config"; snippet_opts; } > "$frag"
log "configuring ARCH=um in $build"
make -C "$tree" O="$build" ARCH=um -s tinyconfig >&2
ARCH=um "$tree/scripts/kconfig/merge_config.sh" -m -O "$build" \
	"$build/.config" "$frag" >/dev/null
make -C "$tree" O="$build" ARCH=um -s olddefconfig >&2

# Every option asked for must have survived olddefconfig
missing=0
while IFS= read -r line; do
	opt=${line%%=*}; val=${line#*=}
	if [ "$val" = n ]; then
		! grep -q "^$opt=" "$build/.config" || { log "$opt should be off"; missing=1; }
	elif ! grep -qx "$opt=$val" "$build/.config"; then
		log "config option lost: $line"; missing=1
	fi
done < <(sed -n -e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1=n/p' \
		-e '/^CONFIG_[A-Z0-9_]*=/p' "$frag" |
	awk -F= '{ last[$1] = $0 } END { for (o in last) print last[o] }')
[ $missing = 0 ] || exit 1

log "building linux and modules (ARCH=um) with $jobs jobs"
start=$(date +%s)
make -C "$tree" O="$build" ARCH=um -s -j"$jobs" linux modules >&2
log "built in $(( $(date +%s) - start )) s"
touch "$build/.kscrub-done"

# Keep the three most recently used UML builds
old=$(ls -1td "$cache"/uml-* 2>/dev/null | tail -n +4) || true
for b in $old; do rm -rf "$b"; done
echo "$build"
