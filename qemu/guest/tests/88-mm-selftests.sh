# SPDX-License-Identifier: GPL-2.0
# The kernel's own mm selftests (tools/testing/selftests/mm, built static by
# qemu/build-selftests.sh), each run once without kscrubd and once with it
# loaded (verify mode): the results must be the same, counted from the
# kselftest totals line ("# Totals: pass:N fail:N ...") or, for a test that
# prints none, from its exit code; and verify mode finds no page served
# prezeroed that is not zero.  Tests the kernel's configuration cannot run
# are skipped and named.  Prints a table of the results.
. /kscrub/lib.sh
d=/kscrub/selftests
cfg=/kscrub/kernel.config
[ -x $d/cow ] || skip_test "no mm selftests in the image"
[ -r $cfg ] || fail "no kernel .config in the image"

# NAME|ARGS|CONFIG options it needs|timeout (s)[|CASES]; NAME is the
# binary, or NAME:variant for a second run of one binary with other
# arguments.  With CASES, only the first CASES test cases count and the
# timeout ends the test by design: split_huge_page_test's nine pagecache
# cases write 4 MiB a byte per write(), 12-14 s each under TCG, and skip
# anyway (no large folios in the page cache of our filesystems).
# khugepaged prints no totals: its OK and Fail lines are counted; its four
# swapout checks fail without CONFIG_SWAP, with and without kscrubd.
# map_populate needs AF_UNIX socketpair().  mremap_test maps 2 GiB (and
# touches 4 MiB of it), which a 2 GiB guest without swap only grants with
# vm.overcommit_memory=1: it runs so.
tests='cow||TRANSPARENT_HUGEPAGE|600
madv_populate|||120
transhuge-stress|-d 5|TRANSPARENT_HUGEPAGE|120
compaction_test||HUGETLBFS|300
khugepaged||TRANSPARENT_HUGEPAGE|600
khugepaged:mthp|-s 2|TRANSPARENT_HUGEPAGE|600
split_huge_page_test||TRANSPARENT_HUGEPAGE DEBUG_FS|5|3
mremap_test|||300
mremap_dontunmap|||120
map_fixed_noreplace|||60
map_populate||UNIX|60
mlock2-tests|||120
mrelease_test|||120
droppable|||120
mkdirty|||120
soft-dirty||MEM_SOFT_DIRTY|120
pagemap_ioctl||USERFAULTFD PTE_MARKER_UFFD_WP|300
uffd-unit-tests||USERFAULTFD|300
ksm_functional_tests||KSM|300
gup_longterm||GUP_TEST|300'

# missing OPTIONS...: the first option not =y in the kernel's .config
missing() {
	local o
	for o in "$@"; do
		grep -q "^CONFIG_$o=y" $cfg || { echo "CONFIG_$o"; return; }
	done
}

# khugepaged's "Doing this... OK" and "... Fail" lines
kh_ok='\.\.\. .*OK'
kh_fail='\.\.\. .*Fail'
# One khugepaged case fails now and then on the debug kernel with or
# without kscrubd ("Fail: Bad return value" in a run without it, "Fail"
# in runs with it): it is left out of the counts, and named when it fails
kh_flaky='Collapse PTE table full of different compound pages'

# result LOG RC [CASES]: what a run gave, as pass:N,fail:N,skip:N,rc=N
result() {
	local t
	if [ -n "$3" ]; then
		# the first CASES TAP lines, the rest cut short on purpose
		awk -v max=$3 '/^(not )?ok [0-9]+/ {
				n = ($1 == "not") ? $3 : $2
				if (n > max) next
				if ($1 == "not") f++; else if (/# SKIP/) s++; else p++
			}
			END { printf "cases1-%d:pass:%d,fail:%d,skip:%d\n", max, p, f, s }' $1
		return
	fi
	t=$(sed -n 's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) xfail:\([0-9]*\) xpass:\([0-9]*\) skip:\([0-9]*\) error:\([0-9]*\).*/\1 \2 \3 \4 \5 \6/p' $1 | tail -n1)
	if [ -n "$t" ]; then
		set -- $t $2
		t="pass:$1,fail:$2,skip:$5"
		[ "$3$4$6" = 000 ] || t="$t,xfail:$3,xpass:$4,error:$6"
		echo "$t,rc=$7"
	elif grep -qe "$kh_ok" -e "$kh_fail" $1; then
		# its exit code counts the flaky case too
		echo "ok:$(grep -v "$kh_flaky" $1 | grep -c "$kh_ok"),fail:$(grep -v "$kh_flaky" $1 | grep -c "$kh_fail")"
	elif [ "$2" = 143 ]; then
		echo "timeout"
	else
		echo "rc=$2"
	fi
}

# run_all LABEL [NAME...]: every test (or those named) once; "NAME
# RESULT" lines in /tmp/mmst.LABEL
run_all() {
	local label=$1 name bin args needs to cases miss t0 rc res
	shift
	: > /tmp/mmst.$label
	echo "$tests" | while IFS='|' read -r name args needs to cases; do
		[ $# = 0 ] || echo " $* " | grep -q " $name " || continue
		bin=${name%%:*}
		miss=$(missing $needs)
		if [ -n "$miss" ]; then
			echo "$name skip(no-$miss)" >> /tmp/mmst.$label
			continue
		fi
		[ $bin = mremap_test ] && echo 1 > /proc/sys/vm/overcommit_memory
		t0=$(cut -d. -f1 /proc/uptime)
		# shellcheck disable=SC2086 # args split on purpose
		# (busybox sh says "Terminated" when timeout ends one)
		(cd /tmp && timeout $to $d/$bin $args) > /tmp/mmst.$label.$name 2>&1 < /dev/null
		rc=$?
		echo 0 > /proc/sys/vm/overcommit_memory
		# what split_huge_page_test leaves when it is cut short
		rm -rf /tmp/thp_fs_*
		res=$(result /tmp/mmst.$label.$name $rc $cases)
		echo "$label: $name $args: $res in $(($(cut -d. -f1 /proc/uptime) - t0)) s"
		grep "$kh_flaky.*Fail" /tmp/mmst.$label.$name | sed "s/^/$label: $name: flaky, not counted: /"
		echo "$name $res" >> /tmp/mmst.$label
	done
}

# result_of NAME LABEL...: NAME's result in each of those runs
result_of() {
	local name=$1 label
	shift
	for label in "$@"; do
		awk -v n="$name" '$1 == n { print $2 }' /tmp/mmst.$label
	done
}

unload_kscrubd
run_all without
load_kscrubd
run_all with
bad=$(kstat verify_bad)
checked=$(kstat verified_pages)
rmmod kscrubd || fail "rmmod kscrubd"

differ=0
: > /tmp/mmst.differ
printf '| %-22s | %-36s | %-36s |\n' "mm selftest" "without kscrubd" "with kscrubd"
printf '|%s|%s|%s|\n' ------------------------ -------------------------------------- --------------------------------------
while read -r name r1; do
	r2=$(result_of "$name" with)
	mark=
	if [ "$r1" != "$r2" ]; then
		mark=" DIFFERS"
		differ=$((differ + 1))
		echo "$name" >> /tmp/mmst.differ
	fi
	printf '| %-22s | %-36s | %-36s |%s\n' "$name" "$r1" "$r2" "$mark"
done < /tmp/mmst.without
# num KEY RESULT: the count after KEY: in a result (khugepaged's ok: is
# its pass:), or nothing
num() {
	echo "$2" | tr ',' '\n' | awk -F: -v k="$1" 'NF > 1 {
		key = $(NF - 1)
		if (key == "ok") key = "pass"
		if (key == k) { print $NF; exit }
	}'
}

# counts RESULT: "PASS FAIL" from a result, or false if it has not both
counts() {
	local p f
	p=$(num pass "$1")
	f=$(num fail "$1")
	[ -n "$p" ] && [ -n "$f" ] && echo "$p $f"
}

# within NAME: both runs with kscrubd passed no fewer cases and failed no
# more than the worse of the two runs without it
within() {
	local r c lo=99999 hi=0
	for r in $(result_of "$1" without without2); do
		c=$(counts "$r") || return 1
		[ ${c% *} -lt $lo ] && lo=${c% *}
		[ ${c#* } -gt $hi ] && hi=${c#* }
	done
	for r in $(result_of "$1" with with2); do
		c=$(counts "$r") || return 1
		[ ${c% *} -ge $lo ] && [ ${c#* } -le $hi ] || return 1
	done
}

# A test that differed runs again, without and then with kscrubd.  The
# first difference was the test's own flakiness, reported but not
# counted, if the two agree this time, or if neither run with kscrubd
# did worse than the worse run without it: on the debug kernel
# khugepaged's runs without kscrubd alone gave 60 and 61 passes, 4 and 5
# failures.
if [ -s /tmp/mmst.differ ]; then
	unload_kscrubd
	run_all without2 $(cat /tmp/mmst.differ)
	load_kscrubd
	run_all with2 $(cat /tmp/mmst.differ)
	bad=$((bad + $(kstat verify_bad)))
	rmmod kscrubd || fail "rmmod kscrubd"
	for name in $(cat /tmp/mmst.differ); do
		r1=$(result_of "$name" without2)
		r2=$(result_of "$name" with2)
		if [ -n "$r1" ] && [ "$r1" = "$r2" ]; then
			echo "$name: flaky, not kscrubd: the second runs agree ($r1)"
			differ=$((differ - 1))
		elif within "$name"; then
			echo "$name: flaky, not kscrubd: with it no worse than the worse run without"
			differ=$((differ - 1))
		fi
	done
fi
for name in $(cat /tmp/mmst.differ); do
	for label in without with; do
		echo "--- $name $label kscrubd: failed cases and last lines"
		grep -e '^not ok' -e "$kh_fail" /tmp/mmst.$label.$name | head -n 20
		tail -n 5 /tmp/mmst.$label.$name
	done
done
echo "verify mode: $checked pages checked, $bad not zero"
expect_eq "verify: non-zero prezeroed pages" "$bad" 0
expect_eq "selftests whose result differs with kscrubd" "$differ" 0
