# SPDX-License-Identifier: GPL-2.0
# make native's plot: ns per 4 KiB by page source, run 1, from native.dat
# usage: gnuplot -e "dat='native.dat'; png='native.png'; nr=2" native.gp
if (!exists("nr")) nr = 2
set terminal pngcairo size 1000,560 font ",10"
set output png
set title "NATIVE: cost of a page by its source, User-mode Linux on the host CPU (run 1; ns per 4 KiB, log scale)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set ylabel "ns per 4 KiB (clear + touch)"
set grid ytics
set key outside right top
set xtics nomirror
plot dat using (column(2 + 0 * nr)):xtic(1) title "hot, cleared per 4 KiB", \
     '' using (column(2 + 1 * nr)) title "hot, extent cleared", \
     '' using (column(2 + 2 * nr)) title "cold dirty, cleared per 4 KiB", \
     '' using (column(2 + 3 * nr)) title "cold dirty, extent cleared", \
     '' using (column(2 + 4 * nr)) title "cold, prezeroed (temporal)", \
     '' using (column(2 + 5 * nr)) title "cold, prezeroed (movnti)"
