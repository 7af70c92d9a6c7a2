#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the build, the guest and the benchmarks need,
# but only those that are missing, so a warm machine pays nothing.
set -euo pipefail

pkgs=(
	linux-source-6.12	# the kernel tree we patch (tarball in /usr/src)
	qemu-system-x86		# qemu-system-x86_64, run with -accel tcg
	dracut-core		# initramfs builder that also pulls shared libs
	busybox-static		# guest userland
	gcc make bc flex bison	# kernel build
	libc6-dev		# static libc for the mm selftests (build-selftests.sh)
	libelf-dev libssl-dev	# objtool and certificate tooling
	cpio kmod xz-utils	# initramfs packing, depmod, tarball
	python3 python3-ply	# results tables; ply for checkpatch's SPDX check
	gnuplot-nox		# benchmark plots (PNG)
	rsync			# kernel headers_install and module staging
	stress-ng		# make stress and 85-stress-short, in the guest
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
