# SPDX-License-Identifier: GPL-2.0
# make stress in short (qemu/guest/stress.sh): 60 s of stress-ng's memory
# stressors with --verify, compaction, drop_caches and THP flips, while
# kscrubd (verify mode) and bte_zero with its fault injection are loaded
# and unloaded over and over: no stressor fails, every page served
# prezeroed is zero, every module cycle works.
exec sh /kscrub/stress.sh 60
