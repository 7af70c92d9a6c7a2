#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make native: what TCG cannot show, measured on the host CPU.
#  1. a User-mode Linux kernel from the same tree and series (build-uml.sh)
#  2. our KUnit suites in it (init_on_alloc=1, then =0)
#  3. two runs of the microbenchmark suite (prezero_bench_kunit) in it,
#     each of a few UML boots, and of faultbench on the host's own
#     kernel, userspace only
#  4. userspace/results/native.md and native.png (report.py, gnuplot)
# Nothing is loaded into the host's kernel.  Timed runs wait while any
# QEMU guest runs (another's TCG timings share the cores).
#
# env: KSCRUB_NATIVE_RUNS (2), KSCRUB_NATIVE_BOOTS (3, per run),
#      KSCRUB_NATIVE_PASSES (11), KSCRUB_LLC_KB
#      (host last-level cache, read from sysfs/getconf if unset),
#      KSCRUB_NATIVE_SKIP_BENCH=1 (build and KUnit only)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/qemu/native
out=$top/qemu/out/native
res=$top/userspace/results
runs=${KSCRUB_NATIVE_RUNS:-2}
boots=${KSCRUB_NATIVE_BOOTS:-3}
passes=${KSCRUB_NATIVE_PASSES:-11}
mkdir -p "$out"

log() { echo "native: $*" >&2; }

t0=$(date +%s)
uml=$(nice -n 19 bash "$here/build-uml.sh")
nice -n 19 make -s -C "$top/userspace" faultbench
log "UML kernel $uml ready after $(( $(date +%s) - t0 )) s"

# --- KUnit in UML -------------------------------------------------------
fail=0
for boot in default init_on_alloc=0; do
	args=()
	[ $boot = default ] || args=("$boot")
	clog=$out/kunit-${boot//=/}.log
	if ! bash "$here/run-uml.sh" "$uml" tests "$clog" "${args[@]}"; then
		log "UML did not finish the KUnit boot ($boot)"; fail=1
	fi
	python3 "$here/ktap.py" "$boot" < "$clog" || fail=1
done

[ "${KSCRUB_NATIVE_SKIP_BENCH:-}" = 1 ] && exit $fail

# --- timed runs ---------------------------------------------------------
wait_quiet() {
	local said=
	while pgrep -f qemu-system > /dev/null; do
		[ -n "$said" ] || log "a QEMU guest is running: waiting (polled every 30 s)"
		said=1
		sleep 30
	done
}

llc_kb() {
	local f kb=
	[ -z "${KSCRUB_LLC_KB:-}" ] || { echo "$KSCRUB_LLC_KB"; return; }
	for f in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ "$(cat "$f/level" 2>/dev/null)" = 3 ] || continue
		kb=$(sed 's/K$//' "$f/size")
	done
	[ -n "$kb" ] || kb=$(( $(getconf LEVEL3_CACHE_SIZE 2>/dev/null || echo 0) / 1024 ))
	[ "$kb" -gt 0 ] 2>/dev/null || kb=32768
	echo "$kb"
}
# CPUs sharing the host's last-level cache: the working-set rounds model
# kscrubd keeping each CPU's slice of it (scrubd_drain_pcp()), which
# UML's kernel cannot read from the host
llc_sharers() {
	local f n=
	for f in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ "$(cat "$f/level" 2>/dev/null)" = 3 ] || continue
		n=$(tr ',' '\n' < "$f/shared_cpu_list" |
			awk -F- '{ n += NF == 2 ? $2 - $1 + 1 : 1 } END { print n + 0 }')
	done
	[ "${n:-0}" -gt 0 ] 2>/dev/null || n=1
	echo "$n"
}
llc=$(llc_kb)
sharers=$(llc_sharers)
log "host LLC $llc KiB shared by $sharers CPUs; eviction buffer 4x that"

# A timed step runs again if a QEMU guest started while it ran
timed() {
	local try
	for try in 1 2 3; do
		wait_quiet
		"$@" || return 1
		pgrep -f qemu-system > /dev/null || return 0
		log "a QEMU guest started during the run: again"
	done
}

faults() {
	local f=$1 w m args i
	: > "$f"
	for w in 4k-1:256:-N-c1 4k-64:256:-N-c64 thp-1:1024:-H-s2048-c1 \
		 thp-64:256:-H-c64; do
		m=${w#*:}; m=${m%%:*}
		args=${w##*:}; args=${args//-/ -}
		# -r 3: mmap, touch, munmap three times in a process; the
		# first run warms up (the host VM backs memory lazily)
		"$top/userspace/faultbench" -m "$m" $args -r 3 -k > /dev/null
		for i in 1 2 3 4 5; do
			echo "workload=${w%%:*} $("$top/userspace/faultbench" \
				-m "$m" $args -r 3 -k)" >> "$f"
		done
	done
}

# Where UML's memory lands in the host's is fixed for a boot and moves a
# few rows by 10-25%: a run is several boots (report.py takes the median)
rm -f "$out"/bench-*.log "$out"/faults-*.txt
logs=()
for r in $(seq 1 "$runs"); do
	for b in $(seq 1 "$boots"); do
		log "run $r, boot $b of $boots: microbenchmark in UML"
		timed bash "$here/run-uml.sh" "$uml" bench \
			"$out/bench-$r-$b.log" init_on_alloc=0 \
			"kscrub.bench_args=llc_kb=$llc,llc_sharers=$sharers,passes=$passes"
		python3 "$here/ktap.py" bench-$r-$b < "$out/bench-$r-$b.log" ||
			fail=1
	done
	logs+=("$(seq -f "$out/bench-$r-%g.log" 1 "$boots" | paste -sd,)")
	log "run $r: faultbench on the host kernel"
	timed faults "$out/faults-$r.txt"
done

python3 "$here/report.py" --llc-kb "$llc" --llc-sharers "$sharers" --out "$res" \
	--bench "${logs[@]}" --faults "$out"/faults-*.txt
gnuplot -e "dat='$res/native.dat'; png='$res/native.png'; nr=$runs" \
	"$here/native.gp" || fail=1
log "done in $(( $(date +%s) - t0 )) s"
exit $fail
