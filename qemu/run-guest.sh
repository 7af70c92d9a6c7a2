#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the guest under QEMU TCG (KVM does not work on these machines) with
# the serial console captured to a log.  A guest that does not power off
# within the timeout is killed and the last 50 console lines are printed.
#
# usage: run-guest.sh MODE LOG [extra kernel args...]
#   MODE: test | run | bench | shell
# env:  KSCRUB_MEM (MiB, default 2048), KSCRUB_CPUS (default 2),
#       KSCRUB_NUMA (nodes, default 2), KSCRUB_TIMEOUT (s, default 900),
#       KSCRUB_ICOUNT (if set, -icount shift=N: the guest clock counts
#       instructions, 2^N ns each, so timings become instruction counts),
#       KSCRUB_HOTPLUG_MB (if set, a DIMM of that size on a further,
#       CPU-less and otherwise memoryless node, left offline by the guest
#       until a test onlines it), KSCRUB_QEMU_ARGS (further QEMU
#       arguments, split at spaces, e.g.
#       a -plugin for profiling), KSCRUB_TCG_THREAD (single, the default,
#       or multi), KSCRUB_GUEST_LOCK (the lock that lets one guest run
#       at a time), KDIR, INITRD (as built by the Makefile)
set -euo pipefail

mode=$1
log=$2
shift 2
mem=${KSCRUB_MEM:-2048}
cpus=${KSCRUB_CPUS:-2}
nodes=${KSCRUB_NUMA:-2}
timeout=${KSCRUB_TIMEOUT:-900}
# Single-threaded TCG: QEMU 7.2's multi-threaded TCG lets a vCPU run a
# stale int3 after static-key patching has finished (README, "Jump labels
# and QEMU"; qemu/jump-label-evidence.sh reproduces it).
tcg_thread=${KSCRUB_TCG_THREAD:-single}
case $tcg_thread in single|multi) ;; *)
	echo "run-guest: KSCRUB_TCG_THREAD=$tcg_thread: want single or multi" >&2
	exit 2 ;;
esac

# One guest at a time on this machine: two TCG guests on two cores make
# every timing noise.  A second caller waits here for the first.
lock=${KSCRUB_GUEST_LOCK:-${XDG_CACHE_HOME:-$HOME/.cache}/kscrub/guest.lock}
mkdir -p "$(dirname "$lock")"
exec 9> "$lock"
flock 9

# One socket per node, or the guest warns that a cache sibling sits on
# another node.
sockets=$nodes
[ $(( cpus % nodes )) -eq 0 ] || sockets=1
memarg=$mem
[ -z "${KSCRUB_HOTPLUG_MB:-}" ] ||
	memarg="size=${mem}M,slots=2,maxmem=$(( mem + KSCRUB_HOTPLUG_MB ))M"
args=(-accel "tcg,thread=$tcg_thread" -m "$memarg" -nographic -no-reboot
      -smp "cpus=$cpus,sockets=$sockets,cores=$(( cpus / sockets )),threads=1"
      -kernel "$KDIR/arch/x86/boot/bzImage" -initrd "$INITRD"
      -device isa-debug-exit,iobase=0xf4,iosize=0x04)
[ -z "${KSCRUB_ICOUNT:-}" ] || args+=(-icount "shift=$KSCRUB_ICOUNT")
# shellcheck disable=SC2206 # split on purpose
[ -z "${KSCRUB_QEMU_ARGS:-}" ] || args+=($KSCRUB_QEMU_ARGS)
if [ "$nodes" -gt 1 ]; then
	per=$(( mem / nodes ))
	for n in $(seq 0 $(( nodes - 1 ))); do
		cpu_lo=$(( n * cpus / nodes ))
		cpu_hi=$(( (n + 1) * cpus / nodes - 1 ))
		sz=$per
		[ "$n" -eq $(( nodes - 1 )) ] && sz=$(( mem - per * (nodes - 1) ))
		args+=(-object "memory-backend-ram,id=m$n,size=${sz}M"
		       -numa "node,nodeid=$n,memdev=m$n,cpus=$cpu_lo-$cpu_hi")
	done
fi
if [ -n "${KSCRUB_HOTPLUG_MB:-}" ] && [ "$nodes" -gt 1 ]; then
	args+=(-numa "node,nodeid=$nodes"
	       -object "memory-backend-ram,id=hp0,size=${KSCRUB_HOTPLUG_MB}M"
	       -device "pc-dimm,id=dimm0,memdev=hp0,node=$nodes")
fi
# no_timer_check: on a busy host TCG can run the guest slowly enough that
# the IO-APIC timer check fails ("IO-APIC + timer doesn't work!").
cmdline="console=ttyS0 no_timer_check panic=-1 oops=panic loglevel=6 kscrub.mode=$mode $*"

if [ "$mode" = shell ]; then
	exec qemu-system-x86_64 "${args[@]}" -append "$cmdline"
fi

rc=0
timeout --foreground -k 5 "$timeout" qemu-system-x86_64 "${args[@]}" \
	-append "$cmdline" -serial "file:$log" -monitor none -display none \
	< /dev/null > "$log.qemu" 2>&1 || rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "run-guest: guest killed after ${timeout}s; last 50 console lines:" >&2
	tail -n 50 "$log" >&2
	exit 124
fi
if ! grep -q '^KSCRUB-DONE' "$log"; then
	echo "run-guest: guest did not finish (qemu rc=$rc); last 50 console lines:" >&2
	tail -n 50 "$log" >&2
	cat "$log.qemu" >&2
	exit 1
fi
exit 0
