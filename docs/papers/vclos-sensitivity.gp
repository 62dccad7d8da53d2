# gnuplot script for docs/papers/vclos-sensitivity.svg: Avg.JCT over Best's at lambda 120 s on
# CLUSTER512, the paper's Table 5 and each variant of vclos-assumptions.md's sensitivity table
# (its row numbers), from vclos-sensitivity.dat.
set terminal svg noenhanced size 1000,520 font 'DejaVu Sans,11'
set output 'vclos-sensitivity.svg'
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key outside right top
set grid ytics
set logscale y
set yrange [0.95:5]
set ytics (1, 1.1, 1.25, 1.5, 2, 3, 4, 5)
set xlabel 'variant (row of the sensitivity table)'
set ylabel 'Avg.JCT / Best (log scale)'
set title 'vClos paper, CLUSTER512 at lambda 120 s: each policy over Best, the paper and this project'
plot 'vclos-sensitivity.dat' using 2:xtic(1) title 'vClos', \
     '' using 3 title 'OCS-vClos', '' using 4 title 'SR', \
     '' using 5 title 'balanced ECMP', '' using 6 title 'ECMP'
