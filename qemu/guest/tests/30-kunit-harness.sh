# SPDX-License-Identifier: GPL-2.0
# An in-tree KUnit suite, built as a module, run through the same KTAP path
# as our own suites: proves modprobe, depmod and the KTAP parser work.
. /kscrub/lib.sh
kunit_module list-test
