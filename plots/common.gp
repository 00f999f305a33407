# Look shared by every collbench chart; each chart script loads it first. The chart's vars file
# (written by prepare.py) has already set: outbase, datafile, W, H, charttitle, xkind
# ('bytes', 'tokens' or 'seq'), xmin, xmax, ymin, ymax (positive y only), n, the per-line arrays
# ttl, lcol, ldt, lpt, llw (line width: the headline algorithm's wider) and lps (point size: 0
# for a reference line without points), the reference lines nlinks, linkv, linkt, the key
# layout keycols, keyrows, and svgname (the SVG document's title, letters, digits and _).
# The x axis is log2 with labelled powers of two: human sizes (8 B, 1 KiB, 1 MiB, 1 GiB) for
# bytes, plain numbers for tokens, 8K / 16K / 1M for sequence lengths. About one label per
# 70 pixels: the label step is 1, 2, 5 or 10 powers of two, aligned to multiples of the step so
# 1 KiB / 1 MiB / 1 GiB show when they can; unlabelled powers of two get minor tics.
set encoding utf8
set title charttitle font ',11'
# The key sits under the x axis label in keycols columns and keyrows rows (prepare.py sizes
# them from the entry texts); the bottom margin grows with the rows. gnuplot's own
# 'set key below' overlaps the x label, hence the explicit placement.
set key at screen 0.5, screen 0.01 center bottom horizontal maxcols keycols spacing 1.1 samplen 3 width 1
set bmargin 4.5 + 1.25 * keyrows
set border 3 lw 1
set tics nomirror out
set grid xtics ytics lc rgb '#cccccc' lw 1 dt 1
set logscale x 2
set xrange [xmin / 1.3 : xmax * 1.3]

hunit(b, p, u) = sprintf('%g %s', b / 2.0**p, u)
hsize(b) = b >= 2**40 ? hunit(b, 40, 'TiB') : b >= 2**30 ? hunit(b, 30, 'GiB') : \
           b >= 2**20 ? hunit(b, 20, 'MiB') : b >= 2**10 ? hunit(b, 10, 'KiB') : hunit(b, 0, 'B')
hseq(s) = s >= 2**20 ? sprintf('%gM', s / 2.0**20) : s >= 2**10 ? sprintf('%gK', s / 2.0**10) : sprintf('%d', s)
xlabelof(b) = xkind eq 'bytes' ? hsize(b) : xkind eq 'seq' ? hseq(b) : sprintf('%d', b)

kmin = floor(log(xmin) / log(2) + 1e-9)
kmax = ceil(log(xmax) / log(2) - 1e-9)
maxlabels = W / 70.0
kstep = (kmax - kmin) / 1.0 + 1 <= maxlabels ? 1 : (kmax - kmin) / 2.0 + 1 <= maxlabels ? 2 : \
        (kmax - kmin) / 5.0 + 1 <= maxlabels ? 5 : 10
set xtics ()
do for [k = kmin : kmax] {
    if (k % kstep == 0) { set xtics add (xlabelof(2**k) 2**k) } else { set xtics add ('' 2**k 1) }
}
set xlabel (xkind eq 'bytes' ? 'message size (bytes, nccl-tests convention)' : \
            xkind eq 'seq' ? 'sequence length S (tokens, all ranks together)' : 'tokens per rank')
set format y '%g'

# For log-y charts: label 2 and 5 of each decade too when the data spans at most 3 decades
# (gnuplot alone labels only 1, 10, 100: too coarse to read a 20 vs 40 µs gap).
LOGY_125 = "if (ymax / ymin <= 1000) { do for [e = floor(log10(ymin)) : ceil(log10(ymax))] { " . \
  "set ytics add (sprintf('%g', 2 * 10.0**e) 2 * 10.0**e, sprintf('%g', 5 * 10.0**e) 5 * 10.0**e) } }"
