# SPDX-License-Identifier: GPL-2.0
#
# kscrub: page prezeroing for Linux 6.12.  Everything runs in a QEMU guest;
# nothing here is ever loaded into the host's kernel.

SHELL := /bin/bash
TOP := $(abspath .)
# KSCRUB_OUT: where the kernel path, initramfs and console logs go
OUT := $(or $(KSCRUB_OUT),$(TOP)/qemu/out)
INITRD := $(OUT)/initramfs.cpio.gz

.PHONY: all deps kernel modules userspace initramfs run test bench shell clean profile stress \
	check-debian test-debug native bench-vm

all: initramfs

deps:
	@bash qemu/deps.sh

# The kernel build is cached outside the repository, keyed by a hash of the
# patch series and configuration; KDIR is where it lives.
kernel: deps
	@mkdir -p $(OUT)
	@bash qemu/build-kernel.sh > $(OUT)/kdir

modules: kernel
	@if ls module/*.c >/dev/null 2>&1; then \
		$(MAKE) -s -C $$(cat $(OUT)/kdir) M=$(TOP)/module modules; fi

userspace: deps
	@if [ -f userspace/Makefile ]; then $(MAKE) -s -C userspace; fi

initramfs: modules userspace
	@bash qemu/mkinitramfs.sh $$(cat $(OUT)/kdir) $(INITRD)

run: initramfs
	@KDIR=$$(cat $(OUT)/kdir) INITRD=$(INITRD) \
		bash qemu/run-guest.sh run $(OUT)/run-console.log; rc=$$?; \
		sed -n 's/^KSCRUB-RUN: //p' $(OUT)/run-console.log | tr -d '\r'; \
		exit $$rc

test: initramfs
	@KDIR=$$(cat $(OUT)/kdir) INITRD=$(INITRD) bash qemu/test.sh

# The whole suite on the debug kernel: KASAN, lockdep, DEBUG_LIST,
# debug_pagealloc=on, page_owner=on; any report fails it.  Its own kernel
# build and output directory; slow (README), so not part of make test.
DEBUG_OUT := $(TOP)/qemu/out-debug
test-debug:
	@$(MAKE) -s test KSCRUB_OUT=$(DEBUG_OUT) \
		KSCRUB_CONFIG_EXTRA=$(TOP)/qemu/kernel-debug.config \
		KSCRUB_TIMEOUT=$${KSCRUB_TIMEOUT:-3600} \
		KSCRUB_CMDLINE="kscrub.debug=1 debug_pagealloc=on page_owner=on"

# Memory stress with kscrubd and bte_zero coming and going, in one boot;
# DURATION seconds of stress in the guest
DURATION ?= 300
stress: initramfs
	@KDIR=$$(cat $(OUT)/kdir) INITRD=$(INITRD) bash qemu/stress.sh $(DURATION)

bench: initramfs
	@KDIR=$$(cat $(OUT)/kdir) INITRD=$(INITRD) bash qemu/bench.sh

# THP faults on memory reported to the host, with and without the host's
# promise that it reads back zero (also part of make bench)
bench-vm: initramfs
	@KDIR=$$(cat $(OUT)/kdir) INITRD=$(INITRD) bash qemu/bench-vm.sh

# The series with Debian's own config (PAGE_PREZERO=y and =n, W=1, no new
# warning), odd configs, the module via dkms; host only, cached
check-debian:
	@bash qemu/check-debian.sh

# Instructions per kernel function, patched vs unpatched, no scrubber
profile: initramfs
	@bash qemu/profile/profile.sh

# On the host CPU, not TCG: KUnit and a microbenchmark in User-mode Linux
# (ARCH=um, a process; nothing loaded into the host's kernel), faultbench on
# the host's own kernel; userspace/results/native.md
native: deps
	@bash qemu/native/native.sh

shell: initramfs
	@KDIR=$$(cat $(OUT)/kdir) INITRD=$(INITRD) bash qemu/run-guest.sh shell -

clean:
	@if [ -s $(OUT)/kdir ]; then \
		$(MAKE) -s -C $$(cat $(OUT)/kdir) M=$(TOP)/module clean; fi
	@if [ -f userspace/Makefile ]; then $(MAKE) -s -C userspace clean; fi
	rm -rf $(OUT)
