# Bus bandwidth vs message size (log x, linear y from 0): nccl-tests' busbw, GB = 1e9. The
# per-direction link limit, when known, is a dashed red line (several when comparing machines).
load plotsdir . 'common.gp'
set yrange [0 : *]
set ylabel 'bus bandwidth (GB/s, GB = 1e9)'
PLOT = "plot for [i = 1 : n] datafile index (i - 1) using 1:2 with linespoints " . \
       "lc rgb lcol[i] dt ldt[i] pt lpt[i] ps lps[i] lw llw[i] title ttl[i], " . \
       "for [j = 1 : nlinks] linkv[j] with lines lc rgb '#cc0000' dt (8, 6) lw 1.5 title linkt[j]"
load plotsdir . 'render.gp'
