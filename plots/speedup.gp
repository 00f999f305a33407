# Speedup of each custom algorithm over the NCCL baseline (time_nccl / time_algo at the same
# size and variant) vs message size. Above the dashed 1.0 line the custom algorithm is faster.
load plotsdir . 'common.gp'
set yrange [0 : *]
set ylabel 'speedup over NCCL (×, higher is better)'
PLOT = "plot for [i = 1 : n] datafile index (i - 1) using 1:2 with linespoints " . \
       "lc rgb lcol[i] dt ldt[i] pt lpt[i] ps lps[i] lw llw[i] title ttl[i], " . \
       "1 with lines lc rgb '#000000' dt (8, 6) lw 1.5 title basetitle"
load plotsdir . 'render.gp'
