# Ring attention: overlap efficiency (compute_us / time_us_mean) vs total sequence length. At
# the dashed 1.0 line the K/V transfers hide completely behind the attention kernels.
load plotsdir . 'common.gp'
set yrange [0 : 1.1 * (ymax > 1 ? ymax : 1)]  # room above the 1.0 line
set ylabel 'overlap efficiency (compute time / wall time)'
PLOT = "plot for [i = 1 : n] datafile index (i - 1) using 1:2 with linespoints " . \
       "lc rgb lcol[i] dt ldt[i] pt lpt[i] ps lps[i] lw llw[i] title ttl[i], " . \
       "1 with lines lc rgb '#000000' dt (8, 6) lw 1.5 title basetitle"
load plotsdir . 'render.gp'
