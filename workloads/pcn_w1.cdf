# PCN (NSDI'20) sec. 7.4, workload W1 (Table 1): the points of web_server.cdf (Facebook web server,
#   source: PlatformLab/HomaSimulation Facebook_WebServerDist_IntraCluster.txt, see web_server.cdf).
# Table 1 itself (W1/W2 flow-count and byte shares per size class S/M/L/XL) is not in the text we
#   have of the paper; the workload is chosen by the paper's description of W1 (sec. 7.4: "W1 contains
#   the most S size flows in number and the most L size flows in bytes", W2 being the heavy-tailed one).
#   With S < 10 KB, M < 100 KB, L < 1 MB, XL >= 1 MB (our class bounds; linear interpolation) this has S 65 % of flows,
#   L 89 % of bytes; tests/test_traffic.c checks those two facts. Replace the points with Table 1's if you have it.
# mean_bytes: linear_interp=62482.9 (0.062 MB, 0.060 MiB); step/discrete=68936.7 (0.069 MB, 0.066 MiB); bytes; source first line (average 68936.79) dropped; first point has P=0.061 (Homa treats the CDF as discrete: P(size=x_i)=p_i-p_(i-1)), so the step mean is the one Homa reports
84 0.061
153 0.126
301 0.215
500 0.226
639 0.2407
800 0.2537
900 0.2667
1000 0.2926
1085 0.313
1357 0.3352
1534 0.35
1664 0.3722
1843 0.3963
2000 0.4093
3000 0.4796
4000 0.5259
5000 0.563
6000 0.5889
7000 0.6111
8000 0.626
9000 0.6407
10000 0.6519
14140 0.6852
20000 0.7148
24512 0.7315
30000 0.7463
34660 0.7574
40000 0.7667
45171 0.7759
50000 0.7815
60000 0.7926
70000 0.8
80000 0.8074
100000 0.8148
144310 0.8241
200000 0.8574
260573 0.8944
300000 0.9222
353730 0.9556
400000 0.9741
442606 0.9833
565213 0.9907
778003 0.9963
1000000 1
