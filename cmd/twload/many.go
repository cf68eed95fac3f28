package main

import (
	"fmt"
	"net/netip"
	"syscall"
	"time"

	"twserver/loadclient"
)

// targetConfigs returns n copies of rc aimed at n consecutive ports from
// rc.Server's, each client with its own seed (target t, client i: seed +
// t*MaxClients + i).
func targetConfigs(rc loadclient.RunConfig, n int) ([]loadclient.RunConfig, error) {
	if n < 1 || n > loadclient.MaxTargets {
		return nil, fmt.Errorf("-targets must be 1..%d", loadclient.MaxTargets)
	}
	if int(rc.Server.Port())+n-1 > 65535 {
		return nil, fmt.Errorf("-targets %d from port %d passes port 65535", n, rc.Server.Port())
	}
	rcs := make([]loadclient.RunConfig, n)
	for t := range rcs {
		rcs[t] = rc
		rcs[t].Server = netip.AddrPortFrom(rc.Server.Addr(), rc.Server.Port()+uint16(t))
		rcs[t].Seed = rc.Seed + uint64(t*loadclient.MaxClients)
	}
	return rcs, nil
}

// cpuTime returns the process's CPU time so far (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// noteCPU records the load generator's own CPU use over a run of wall
// time elapsed in the summary.
func noteCPU(sum *loadclient.Summary, cpu, elapsed time.Duration) {
	if elapsed <= 0 {
		return
	}
	sum.LoadCPUPct = float64(cpu) / float64(elapsed) * 100
	if sum.Clients > 0 {
		sum.LoadCPUPctPerClient = sum.LoadCPUPct / float64(sum.Clients)
	}
}
