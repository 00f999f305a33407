# MoE: time per phase (round trip, dispatch, combine) vs tokens per rank, log-log. Colour =
# algorithm, dash and point = phase, copy_ce's round trip a thin grey reference line without
# points under the others (prepare.py moe_charts picks them).
load plotsdir . 'common.gp'
set logscale y 10
eval LOGY_125
set ylabel 'time per call (µs, mean over ranks)'
PLOT = "plot for [i = 1 : n] datafile index (i - 1) using 1:2 with linespoints " . \
       "lc rgb lcol[i] dt ldt[i] pt lpt[i] ps lps[i] lw llw[i] title ttl[i]"
load plotsdir . 'render.gp'
