# SPDX-License-Identifier: GPL-2.0
# KUnit tests of the allocator hooks (module/prezero_kunit.c).
. /kscrub/lib.sh
kunit_module prezero_kunit
