# SPDX-License-Identifier: GPL-2.0
# KUnit tests of kscrubd's policy decisions (module/kscrubd_kunit.c).
. /kscrub/lib.sh
kunit_module kscrubd_kunit
