#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest kernel out of the repository: extract Debian's
# linux-source-6.12 into a cache, apply hook-patch/*.patch in order,
# configure tinyconfig + qemu/kernel.config (+ Kconfig.snippet options),
# build bzImage and modules.  The result is keyed by a hash of the tree
# version, the patches and the configuration, so an unchanged second run
# rebuilds nothing.
#
# usage: build-kernel.sh [--unpatched] [--tree-only]
#   --tree-only: extract and patch the tree only, print its path (make
#   native builds ARCH=um from it, O= a directory of its own)
# env:   KSCRUB_CONFIG_EXTRA, a further fragment merged last (part of the key)
# prints the build directory (KDIR for out-of-tree modules) on stdout.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSCRUB_CACHE:-$HOME/.cache/kscrub}
tarball=${KSCRUB_KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
jobs=${KSCRUB_JOBS:-$(nproc)}
extra=${KSCRUB_CONFIG_EXTRA:-}
patched=1
tree_only=0
for a in "$@"; do
	case $a in
	--unpatched) patched=0 ;;
	--tree-only) tree_only=1 ;;
	*) echo "build-kernel: unknown option $a" >&2; exit 2 ;;
	esac
done

log() { echo "build-kernel: $*" >&2; }

[ -r "$tarball" ] || { log "missing $tarball (run qemu/deps.sh)"; exit 1; }
[ -z "$extra" ] || [ -r "$extra" ] || { log "missing $extra"; exit 1; }

patches=()
if [ $patched = 1 ]; then
	for p in "$top"/hook-patch/*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		[ -e "$p" ] && patches+=("$p")
	done
fi

# Options the patch series adds, taken from Kconfig.snippet.
snippet_opts() {
	[ $patched = 1 ] || return 0
	sed -n 's/^config \([A-Z0-9_]*\).*/CONFIG_\1=y/p' "$top/Kconfig.snippet"
}

key=$( {
	stat -c '%s %Y' "$tarball"
	for p in "${patches[@]}"; do sha256sum < "$p"; done
	cat "$top/qemu/kernel.config"
	snippet_opts
	[ -z "$extra" ] || cat "$extra"
	echo "v2"
} | sha256sum | cut -c1-16)

tree=$cache/tree-$key
build=$cache/build-$key
mkdir -p "$cache"

# Keep the few most recently used trees and builds; each is 2-3 GiB.
# make bench uses three (the test kernel, and the patched and unpatched
# kernels built as Debian builds them), make test-debug a fourth; with
# only four kept, a kernel for a branch under test pushed the debug
# kernel out and the next debug run rebuilt it for half an hour.
prune() {
	local old
	old=$(ls -1td "$cache"/build-* 2>/dev/null | tail -n +7) || true
	for b in $old; do
		rm -rf "$b" "$cache/tree-${b##*/build-}"
	done
}

if [ $tree_only = 0 ] && [ -f "$build/.kscrub-done" ]; then
	touch "$build"
	log "cached build $build"
	echo "$build"
	exit 0
fi

if [ ! -f "$tree/.kscrub-tree" ]; then
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	log "extracting $(basename "$tarball")"
	tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
	for p in "${patches[@]}"; do
		if ! patch -d "$tree.tmp" -p1 --quiet --forward --batch < "$p" >&2; then
			log "FAILED to apply $(basename "$p")"
			exit 1
		fi
		log "applied $(basename "$p")"
	done
	touch "$tree.tmp/.kscrub-tree"
	mv "$tree.tmp" "$tree"
fi
if [ $tree_only = 1 ]; then
	echo "$tree"
	exit 0
fi

rm -rf "$build"
mkdir -p "$build"
frag=$build/kscrub.config
{ cat "$top/qemu/kernel.config"; snippet_opts; [ -z "$extra" ] || cat "$extra"; } > "$frag"
log "configuring in $build"
make -C "$tree" O="$build" -s tinyconfig >&2
"$tree/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$frag" >/dev/null
make -C "$tree" O="$build" -s olddefconfig >&2

# Every option we asked for must have survived olddefconfig, as the last
# fragment to set it says ("# CONFIG_X is not set" included).
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

log "building bzImage and modules with $jobs jobs"
start=$(date +%s)
make -C "$tree" O="$build" -s -j"$jobs" bzImage modules >&2
log "built in $(( $(date +%s) - start )) s"
touch "$build/.kscrub-done"
prune
echo "$build"
