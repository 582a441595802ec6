# PCN (NSDI'20) sec. 7.4, workload W2 (Table 1): the points of data_mining.cdf (VL2's data mining,
#   source: snowzjx/ns3-load-balance VL2_CDF.txt, see data_mining.cdf).
# Table 1 itself is not in the text we have of the paper; the workload is chosen by the paper's own
#   description of W2 (sec. 7.4: "the S size flows occupy almost 80% of the number and less than 1% of the
#   bytes, while the XL size flows only take less than 10% of the number but occupy almost all bytes").
#   With S < 10 KB and XL >= 1 MB (our class bounds; linear interpolation) this has S 80 % of flows and 0.01 % of bytes,
#   XL 8.9 % of flows and 99.8 % of bytes; tests/test_traffic.c checks those facts. PCN's Fig. 21 uses W2 too.
# mean_bytes: linear_interp=12658198.6 (12.658 MB, 12.072 MiB); step/discrete=23199798.6 (23.200 MB, 22.125 MiB); bytes; probabilities as in source; same points as datacenter/empirical-traffic-gen VL2_CDF
0 0
180 0.1
216 0.2
560 0.3
900 0.4
1100 0.5
1870 0.6
3160 0.7
10000 0.8
400000 0.9
3160000 0.95
100000000 0.98
1000000000 1
