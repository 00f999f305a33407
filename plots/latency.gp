# Latency vs message size, log-log: one line per algorithm (mean over ranks of the per-call
# time). Lower is better.
load plotsdir . 'common.gp'
set logscale y 10
eval LOGY_125
set ylabel 'time per call (µs, mean over ranks)'
PLOT = "plot for [i = 1 : n] datafile index (i - 1) using 1:2 with linespoints " . \
       "lc rgb lcol[i] dt ldt[i] pt lpt[i] ps lps[i] lw llw[i] title ttl[i]"
load plotsdir . 'render.gp'
