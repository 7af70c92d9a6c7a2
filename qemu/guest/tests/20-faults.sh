# SPDX-License-Identifier: GPL-2.0
# The fault benchmark's two modes do what they say in this kernel:
# MADV_NOHUGEPAGE gives 4 KiB faults, MADV_HUGEPAGE gives THP faults, and
# every byte handed to userspace reads zero.
. /kscrub/lib.sh
command -v faultbench > /dev/null || fail "faultbench not in the image"
out=$(faultbench -m 64 -N -v -k) || fail "faultbench -N: $out"
echo "$out"
expect_ge "4k: pgfault delta" "$(kv pgfault)" 16384
expect_eq "4k: thp_fault_alloc delta" "$(kv thp_fault_alloc)" 0
expect_eq "4k: non-zero pages" "$(kv nonzero_pages)" 0
out=$(faultbench -m 64 -H -v -k) || fail "faultbench -H: $out"
echo "$out"
expect_ge "thp: thp_fault_alloc delta" "$(kv thp_fault_alloc)" 24
expect_eq "thp: non-zero pages" "$(kv nonzero_pages)" 0
