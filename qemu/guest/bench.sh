# SPDX-License-Identifier: GPL-2.0
# make bench (guest side): the fault-rate matrix in one boot, without and,
# when kscrubd.ko exists, with prezeroing.  Each result is one
# KSCRUB-BENCH line of key=value pairs for the host to tabulate.
. /kscrub/lib.sh
matrix() {
	for mode in N H; do
		for c in 1 4 16 64; do
			for rep in 1 2 3; do
				r=$(faultbench -m 256 -$mode -c $c -k) || r="error=1"
				echo "KSCRUB-BENCH: prezero=$1 rep=$rep $r"
			done
		done
	done
}
matrix off
if modprobe kscrubd 2>/dev/null; then
	sleep 10
	matrix on
fi
