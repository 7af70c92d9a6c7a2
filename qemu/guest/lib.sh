# SPDX-License-Identifier: GPL-2.0
# Helpers for in-guest tests: each test is a shell script that exits
# non-zero on failure and says why on its output.

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

# expect_ge WHAT GOT MIN
expect_ge() {
	[ "$2" -ge "$3" ] 2>/dev/null || fail "$1: got '$2', want >= $3"
	echo "ok: $1 = $2 (>= $3)"
}

vmstat() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print -1 }' /proc/vmstat
}

kver() {
	cat /kscrub/kernel.release
}

# kunit_module MODULE: load a KUnit suite module and report each case as a
# KSCRUB-TEST sub-test line, from the KTAP it prints.
kunit_module() {
	dmesg -c > /dev/null
	modprobe "$1" || fail "modprobe $1"
	dmesg | sed 's/^\[[ 0-9.]*\] //' > /tmp/ktap.$$
	awk -v mod="$1" '
		/^    (not )?ok [0-9]+ / {
			res = ($1 == "not") ? "FAIL" : "PASS"
			name = $0; sub(/^ *(not )?ok [0-9]+ /, "", name)
			sub(/ #.*$/, "", name)
			if ($0 ~ /# SKIP/) res = "SKIP"
			print "KSCRUB-TEST: kunit/" mod "/" name " " res
			n++; if (res == "FAIL") bad++
		}
		/# Totals:/ { totals = $0 }
		END {
			if (n == 0) { print "FAIL: no KTAP cases from " mod; exit 1 }
			print totals
			exit bad ? 1 : 0
		}' /tmp/ktap.$$ || { rmmod "$1" 2>/dev/null; exit 1; }
	rmmod "$1" || fail "rmmod $1"
}

# kv KEY: the value of KEY in the key=value line held in $out (as printed
# by faultbench -k).
kv() {
	echo "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
