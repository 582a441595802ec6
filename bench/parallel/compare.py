#!/usr/bin/env python3
"""bench/parallel/compare.py: random scenarios, each run serially and with
run.threads = 2, 3 or 4, every output compared (fct.csv, pfc.csv, pfc_ports.csv,
monitor files, summary.json less the engine's lines). A differential check of
the parallel engine (src/engine/, src/net/shard.c) beyond tests/cli_parallel.sh's fixed cases;
it found the stopped-run packets_left_in_network difference fixed in 920159a.

    bench/parallel/compare.py [SEED [CASES [BIN]]]     # defaults 1, 20, build/rocesim
    RANKS=2 bench/parallel/compare.py ...              # against `mpirun -np 2` (1 or 2 threads each)

With RANKS set, the parallel run is one across MPI ranks. Prints each case that differs (its --set options) and "bad N" at the end;
configurations rocesim refuses (exit 2) are skipped. Minutes per 20 cases."""
import random, subprocess, sys, os, filecmp, glob, tempfile
B = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build', 'rocesim')
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
TMP = tempfile.mkdtemp(prefix='rocesim-compare-')
RANKS = int(os.environ.get('RANKS', '0'))
MPI = ['mpirun', '--oversubscribe', '--allow-run-as-root', '-np', str(RANKS)] if RANKS > 1 else []
def net(d):
    out=[]
    for l in open(d+'/summary.json'):
        if any(k in l for k in ['"command_line"','"wall_seconds"','"events_per_second"','"packet_hops_per_second"','"peak_rss_bytes"','"events"','"peak_packets_in_flight"','"run": {']): continue
        out.append(l)
    return out
bad=0
for case in range(int(sys.argv[2]) if len(sys.argv)>2 else 20):
    a=[]
    topo=random.choice(['ls','ft','clos'])
    if topo=='ls': a+=['--set','topology.type=leafspine','--set',f'topology.leaves={random.randint(2,6)}','--set',f'topology.spines={random.randint(1,4)}','--set',f'topology.hosts_per_leaf={random.randint(2,8)}']
    elif topo=='ft': a+=['--set','topology.type=fattree','--set',f'topology.k={random.choice([4,6,8])}']
    else: a+=['--set','topology.type=clos','--set',f'topology.pods={random.randint(2,3)}']
    cc=random.choice(['dcqcn','hpcc','timely','swift','dctcp','none','qcn','mprdma'])
    lb=random.choice(['ecmp','letflow','conga','drill','spray','hermes','conweave','proteus'])
    lb = 'ecmp' if cc=='mprdma' else lb
    a+=['--set',f'transport.cc={cc}','--set',f'lb.scheme={lb}']
    if cc=='hpcc' and random.random()<0.7: a+=['--set','transport.window=bdp']
    pfc=random.random()<0.75
    a+=['--set',f'switch.pfc={"on" if pfc else "off"}','--set',f'switch.buffer={random.choice(["300KB","1MB","4MB"])}']
    if not pfc and random.random()<0.5: a+=['--set','transport.recovery=irn']
    a+=['--set',f'traffic.load={random.choice([0.3,0.5,0.8])}','--set',f'traffic.duration={random.choice([100,200,400])}us','--set',f'run.seed={random.randint(1,99)}']
    a+=['--set',f'traffic.cdf={random.choice(["web_search","fb_hadoop","data_mining","cache_follower"])}']
    if random.random()<0.3: a+=['--set','output.queue_ports=all','--set','output.queue_interval=7us']
    if random.random()<0.2: a+=['--set','output.util_ports=all','--set','output.flows=0,1,2','--set','output.paused_interval=9us']
    if random.random()<0.2: a+=['--set','topology.loss=0.0005']
    if topo=='ls' and random.random()<0.5: a+=['--set',f'topology.fail=leaf0-spine0@{random.randint(10,60)}us-{random.randint(70,200)}us']
    if topo=='ft' and random.random()<0.5: a+=['--set',f'topology.switch_fail=agg0.0@{random.randint(10,60)}us-{random.randint(70,200)}us']
    if random.random()<0.2: a+=['--set','run.deadlock_timeout=20us']
    if random.random()<0.2: a+=['--set',f'run.stop={random.choice([80,150])}us']
    if random.random()<0.3: a+=['--set',f'run.partitions={random.randint(2,12)}']
    outs=[]
    rcs=[]
    for k,t in enumerate([1,random.choice([1,2] if MPI else [2,3,4])]):
        d=f'{TMP}/{case}-{k}'
        r=subprocess.run((MPI if k else [])+[B,'run','--quiet']+a+['--set',f'run.threads={t}','--out',d],capture_output=True,text=True)
        rcs.append(r.returncode); outs.append(d)
        if r.returncode not in (0,3,4): break
    if len(outs)<2 or rcs[0]!=rcs[1]:
        if rcs[0]!=2: print('CASE',case,'rcs',rcs,' '.join(a)); bad+=1
        continue
    same=True
    for f in glob.glob(outs[0]+'/*.csv'):
        if not filecmp.cmp(f, outs[1]+'/'+os.path.basename(f), shallow=False): same=False; print('DIFF',os.path.basename(f))
    if net(outs[0])!=net(outs[1]): same=False; print('DIFF summary')
    if not same: bad+=1; print('CASE',case,' '.join(a))
print('bad',bad)
