# Ring attention: TFLOP/s per GPU vs total sequence length (log x, linear y from 0), one line
# per algorithm; single (P = 1) is the reference the distributed forms aim for. Also the block-kernel
# chart (plots/attn.py kernel_charts: single vs single_cudnn, causal and not, P = 1).
load plotsdir . 'common.gp'
set yrange [0 : *]
set ylabel 'TFLOP/s per GPU (attention FLOPs / time / P; a backward counts 2.5x the forward)'
PLOT = "plot for [i = 1 : n] datafile index (i - 1) using 1:2 with linespoints " . \
       "lc rgb lcol[i] dt ldt[i] pt lpt[i] ps lps[i] lw llw[i] title ttl[i]"
load plotsdir . 'render.gp'
