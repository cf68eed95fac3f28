package metrics

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// UpgradeResults are the outcomes of a live upgrade, the labels of
// twserver_upgrades_total: the new process serves, or it exited, refused
// the state, hung (killed), or could not be started or given the state.
var UpgradeResults = [...]string{"ready", "exited", "refused", "hung", "start_failed"}

// Upgrades counts a process's live upgrades by result, indexed as
// UpgradeResults (atomics: the upgrade adds, a scrape reads).
type Upgrades [len(UpgradeResults)]atomic.Uint64

var descUpgrades = newFamily("twserver_upgrades_total", "Live upgrades since the last restart (a new process goes on from the old one's counts), by result (ready: the new process took over).", typeCounter, "result")

// Process-wide families: build info and the Go runtime's figures (the
// names client libraries use, so dashboards and scripts keep working).
var (
	descBuild      = newFamily("twserver_build_info", "Always 1; the labels name the twserver and Go versions.", typeGauge, "go", "version")
	descGoInfo     = newFamily("go_info", "Always 1; the label is the Go version the binary was built with.", typeGauge, "version")
	descGoroutines = newFamily("go_goroutines", "Goroutines alive.", typeGauge)
	descThreads    = newFamily("go_threads", "Operating-system threads the Go runtime created.", typeGauge)
	descMaxProcs   = newFamily("go_sched_gomaxprocs_threads", "GOMAXPROCS: threads that may run Go code at once.", typeGauge)
	descGCDuration = newFamily("go_gc_duration_seconds", "Stop-the-world pauses of the garbage collector (quantiles over the recent pauses).", typeSummary)
	descLastGC     = newFamily("go_memstats_last_gc_time_seconds", "Unix time of the last garbage collection (0 before the first).", typeGauge)
)

// memStat is one go_memstats_* figure read from runtime.MemStats.
type memStat struct {
	f   *family
	get func(*runtime.MemStats) uint64
}

// memStats are the go_memstats_* figures besides the last GC time.
var memStats = [...]memStat{
	{newFamily("go_memstats_alloc_bytes", "Heap bytes in reachable or not yet freed objects (MemStats.Alloc).", typeGauge), func(m *runtime.MemStats) uint64 { return m.Alloc }},
	{newFamily("go_memstats_alloc_bytes_total", "Heap bytes allocated since start, freed ones included (MemStats.TotalAlloc).", typeCounter), func(m *runtime.MemStats) uint64 { return m.TotalAlloc }},
	{newFamily("go_memstats_sys_bytes", "Bytes of memory the Go runtime obtained from the system (MemStats.Sys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.Sys }},
	{newFamily("go_memstats_mallocs_total", "Heap objects allocated since start (MemStats.Mallocs).", typeCounter), func(m *runtime.MemStats) uint64 { return m.Mallocs }},
	{newFamily("go_memstats_frees_total", "Heap objects freed since start (MemStats.Frees).", typeCounter), func(m *runtime.MemStats) uint64 { return m.Frees }},
	{newFamily("go_memstats_heap_alloc_bytes", "Heap bytes in allocated objects (MemStats.HeapAlloc).", typeGauge), func(m *runtime.MemStats) uint64 { return m.HeapAlloc }},
	{newFamily("go_memstats_heap_sys_bytes", "Heap bytes reserved from the system (MemStats.HeapSys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.HeapSys }},
	{newFamily("go_memstats_heap_idle_bytes", "Heap bytes in spans without objects (MemStats.HeapIdle).", typeGauge), func(m *runtime.MemStats) uint64 { return m.HeapIdle }},
	{newFamily("go_memstats_heap_inuse_bytes", "Heap bytes in spans with at least one object (MemStats.HeapInuse).", typeGauge), func(m *runtime.MemStats) uint64 { return m.HeapInuse }},
	{newFamily("go_memstats_heap_released_bytes", "Idle heap bytes returned to the system (MemStats.HeapReleased).", typeGauge), func(m *runtime.MemStats) uint64 { return m.HeapReleased }},
	{newFamily("go_memstats_heap_objects", "Heap objects allocated and not yet freed (MemStats.HeapObjects).", typeGauge), func(m *runtime.MemStats) uint64 { return m.HeapObjects }},
	{newFamily("go_memstats_stack_inuse_bytes", "Bytes in goroutine stack spans (MemStats.StackInuse).", typeGauge), func(m *runtime.MemStats) uint64 { return m.StackInuse }},
	{newFamily("go_memstats_stack_sys_bytes", "Stack bytes obtained from the system (MemStats.StackSys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.StackSys }},
	{newFamily("go_memstats_mspan_inuse_bytes", "Bytes of span structures in use (MemStats.MSpanInuse).", typeGauge), func(m *runtime.MemStats) uint64 { return m.MSpanInuse }},
	{newFamily("go_memstats_mspan_sys_bytes", "Bytes obtained from the system for span structures (MemStats.MSpanSys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.MSpanSys }},
	{newFamily("go_memstats_mcache_inuse_bytes", "Bytes of per-P cache structures in use (MemStats.MCacheInuse).", typeGauge), func(m *runtime.MemStats) uint64 { return m.MCacheInuse }},
	{newFamily("go_memstats_mcache_sys_bytes", "Bytes obtained from the system for per-P caches (MemStats.MCacheSys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.MCacheSys }},
	{newFamily("go_memstats_buck_hash_sys_bytes", "Bytes of the profiling bucket hash table (MemStats.BuckHashSys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.BuckHashSys }},
	{newFamily("go_memstats_gc_sys_bytes", "Bytes of garbage collector metadata (MemStats.GCSys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.GCSys }},
	{newFamily("go_memstats_other_sys_bytes", "Bytes of other runtime allocations (MemStats.OtherSys).", typeGauge), func(m *runtime.MemStats) uint64 { return m.OtherSys }},
	{newFamily("go_memstats_next_gc_bytes", "Heap size goal of the next garbage collection (MemStats.NextGC).", typeGauge), func(m *runtime.MemStats) uint64 { return m.NextGC }},
}

// gcQuantiles are the quantiles of go_gc_duration_seconds, as
// debug.ReadGCStats computes them (minimum, quartiles, maximum).
var gcQuantiles = [...]string{"0", "0.25", "0.5", "0.75", "1"}

// runtimeStats is the scratch space of the runtime figures, kept between
// scrapes so that reading them allocates nothing.
type runtimeStats struct {
	mem  runtime.MemStats
	gc   debug.GCStats
	proc [4096]byte // /proc files are read into it
}

// collect writes the process-wide figures: build info, the Go runtime's
// and the process's (process_*, where the system provides them).
func (r *runtimeStats) collect(x *expo, version string) {
	x.uint(descBuild, 1, runtime.Version(), version)
	x.uint(descGoInfo, 1, runtime.Version())
	x.uint(descGoroutines, uint64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	x.uint(descThreads, uint64(threads))
	x.uint(descMaxProcs, uint64(runtime.GOMAXPROCS(0)))

	if len(r.gc.PauseQuantiles) != len(gcQuantiles) {
		r.gc.PauseQuantiles = make([]time.Duration, len(gcQuantiles))
	}
	debug.ReadGCStats(&r.gc)
	for i, q := range gcQuantiles {
		x.floatX(descGCDuration, "", "quantile", q, r.gc.PauseQuantiles[i].Seconds(), nil)
	}
	x.floatX(descGCDuration, "_sum", "", "", r.gc.PauseTotal.Seconds(), nil)
	x.uintX(descGCDuration, "_count", "", "", uint64(r.gc.NumGC), nil)

	runtime.ReadMemStats(&r.mem)
	for _, m := range memStats {
		x.uint(m.f, m.get(&r.mem))
	}
	x.float(descLastGC, float64(r.mem.LastGC)/1e9)
	collectProcess(x, r.proc[:])
}
