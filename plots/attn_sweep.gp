# Ring attention's batch x sequence sweep: TFLOP/s per GPU of one scheme as a heatmap, sequence
# length across, batch up, each cell labelled with its value ('–' where the row did not run),
# the knee (plots/attn_sweep.py: the smallest batch x sequence reaching 90 % of the plateau)
# framed. The vars file (written by plots/attn_sweep.py) has set: outbase, datafile, W, H,
# charttitle, svgname, nx, ny, the tic labels xlab[nx] and ylab[ny], zmax (the colour scale's
# top) and kneetitle. datafile: block 0 holds "x y TFLOP/s label" per cell (NaN where the row did
# not run: left blank), block 1 the knee's "x y".
set encoding utf8
set title charttitle font ',11'
set border 3 lw 1
set tics nomirror out
set xrange [-0.5 : nx - 0.5]
set yrange [-0.5 : ny - 0.5]
set xtics ()
do for [i = 1 : nx] { set xtics add (xlab[i] i - 1) }
set ytics ()
do for [j = 1 : ny] { set ytics add (ylab[j] j - 1) }
set xlabel 'sequence length S (tokens, all ranks together)'
set ylabel 'batch'
set cblabel 'TFLOP/s per GPU'
set cbrange [0 : zmax]
# light to mid orange: black labels stay readable on every cell
set palette defined (0 '#fff5eb', 0.5 '#fdae6b', 1 '#e6550d')
set key at screen 0.5, screen 0.01 center bottom horizontal samplen 2
set bmargin 5
PLOT = "plot datafile index 0 using 1:2:3 with image notitle, " . \
       "'' index 0 using 1:2:4 with labels font ',9' notitle, " . \
       "'' index 1 using 1:2:(0.5):(0.5) with boxxyerror fs empty lw 3 lc rgb '#000000' title kneetitle"
load plotsdir . 'render.gp'
