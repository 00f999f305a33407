# Draws the chart held in the string PLOT twice, same size: outbase.png (pngcairo) and
# outbase.svg, titled svgname (else gnuplot titles every SVG "Gnuplot"). noenhanced keeps names
# like twoshot_push literal (no subscripts).
set terminal pngcairo size W, H font 'DejaVu Sans,10' noenhanced background '#ffffff'
set output outbase . '.png'
eval PLOT
set terminal svg size W, H font 'DejaVu Sans,10' noenhanced background '#ffffff' name svgname
set output outbase . '.svg'
eval PLOT
unset output
