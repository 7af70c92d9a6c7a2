#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and install module/ the way distributions build out-of-tree
# modules: dkms add, build and install (module/dkms.conf) against a kernel
# build directory that carries the series, then dkms remove.
#
# Nothing touches the host's dkms tree, /usr/src or /lib/modules: every
# dkms command gets --dkmstree, --sourcetree and --installtree in a scratch
# directory, install runs with --no-depmod (depmod -b runs on the scratch
# tree instead), and nothing is ever loaded.  Called by check-debian.sh.
#
# usage: check-dkms.sh KERNEL_BUILD_DIR [KERNEL_BUILD_DIR_WITHOUT_SERIES]
#   The first must have had "make modules_prepare".  The second, if given,
#   must be refused (BUILD_EXCLUSIVE_CONFIG).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${KSCRUB_CACHE:-$HOME/.cache/kscrub}
kdir=$(cd "${1:?usage: check-dkms.sh KERNEL_BUILD_DIR [KDIR_WITHOUT_SERIES]}" && pwd)
kdir_off=${2:-}
t=$cache/check-dkms
log() { echo "check-dkms: $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

if ! dpkg-query -W -f='${Status}' dkms 2>/dev/null | grep -q 'install ok installed'; then
	log "installing dkms"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends dkms >/dev/null
fi

conf=$top/module/dkms.conf
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$conf")
release=$(cat "$kdir/include/config/kernel.release")
arch=$(uname -m)
[ -n "$name" ] && [ -n "$ver" ] || fail "no PACKAGE_NAME/PACKAGE_VERSION in $conf"

rm -rf "$t"
mkdir -p "$t/source/$name-$ver" "$t/dkms" "$t/root/lib/modules/$release"
cp "$conf" "$top"/module/Kbuild "$top"/module/*.[ch] "$t/source/$name-$ver/"
rm -f "$t/source/$name-$ver"/*.mod.c
trees=(--dkmstree "$t/dkms" --sourcetree "$t/source" --installtree "$t/root/lib/modules")
mvk=(-m "$name" -v "$ver" -k "$release")

run() {	# run LOG dkms args...: under nice, output to $t/LOG
	local l=$t/$1
	shift
	log "dkms $*"
	nice -n 19 dkms "$@" > "$l" 2>&1 || { sed 's/^/    /' "$l" | tail -n 30 >&2; return 1; }
}

run add.log add -m "$name" -v "$ver" "${trees[@]}" || fail "dkms add"

# A kernel without the series is refused.
if [ -n "$kdir_off" ]; then
	rel_off=$(cat "$kdir_off/include/config/kernel.release")
	if nice -n 19 dkms build -m "$name" -v "$ver" -k "$rel_off" "${trees[@]}" \
		--kernelsourcedir "$kdir_off" > "$t/build-off.log" 2>&1; then
		fail "dkms built for a kernel without CONFIG_PAGE_PREZERO"
	fi
	grep -q 'BUILD_EXCLUSIVE' "$t/build-off.log" ||
		fail "dkms refused the kernel without the series, but not for BUILD_EXCLUSIVE: $(cat "$t/build-off.log")"
	log "kernel without CONFIG_PAGE_PREZERO refused (BUILD_EXCLUSIVE_CONFIG)"
fi

# The build directory has no vmlinux and so no Module.symvers: modpost
# reports the kernel's symbols unresolved, as warnings with this.
export KBUILD_MODPOST_WARN=1
start=$(date +%s)
run build.log build "${mvk[@]}" "${trees[@]}" --kernelsourcedir "$kdir" ||
	{ sed 's/^/    /' "$t/dkms/$name/$ver/build/make.log" 2>/dev/null | grep -E 'error|warning' | head -n 30 >&2; fail "dkms build"; }
log "built in $(( $(date +%s) - start )) s"
out=$t/dkms/$name/$ver/$release/$arch/module
for m in kscrubd bte_zero; do
	[ -f "$out/$m.ko" ] || fail "dkms build left no $m.ko in $out"
done
# Compiler warnings in the module build fail the check (dkms keeps
# make.log beside the built modules; remove deletes it, so copy it).
cp "$t/dkms/$name/$ver/$release/$arch/log/make.log" "$t/make.log" ||
	fail "no make.log from dkms build"
if grep -E '(warning|error): ' "$t/make.log" | grep -v modpost; then
	fail "compiler warnings in the dkms build"
fi

run install.log install "${mvk[@]}" "${trees[@]}" --kernelsourcedir "$kdir" --no-depmod ||
	fail "dkms install"
for m in kscrubd bte_zero; do
	[ -f "$t/root/lib/modules/$release/updates/dkms/$m.ko" ] || fail "dkms install left no $m.ko"
done
# depmod on the scratch root: bte_zero resolves against kscrubd.
touch "$t/root/lib/modules/$release"/modules.{order,builtin,builtin.modinfo}
depmod -b "$t/root" "$release"
grep '^updates/dkms/' "$t/root/lib/modules/$release/modules.dep" | sed 's/^/    /' >&2

run status.log status -m "$name" -v "$ver" "${trees[@]}"
grep -q "installed" "$t/status.log" || fail "dkms status does not say installed: $(cat "$t/status.log")"

run remove.log remove "${mvk[@]}" "${trees[@]}" --no-depmod || fail "dkms remove"
[ ! -e "$t/root/lib/modules/$release/updates/dkms/kscrubd.ko" ] || fail "dkms remove left kscrubd.ko"
log "add, build, install, remove: ok ($name $ver, kernel $release; logs in $t)"
