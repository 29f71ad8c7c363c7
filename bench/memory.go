package bench

import (
	"bufio"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rows run one after another in the bench process, so a row's memory is what
// the process holds above what it held before the row began. Two figures, each
// honest about something different (docs/output.md):
//
//   - the peak of the Go heap's objects above the row's starting heap, sampled:
//     the engine's own data (visited sets, stacks of states) plus garbage the
//     collector has not yet freed, but none of the runtime's fixed overhead;
//   - the process's peak resident set size during the row (Linux: VmHWM, reset
//     at the row's start): what the operating system had to give, comparable
//     with another tool's process memory, fixed overhead included.
type memorySampler struct {
	baseline uint64 // heap objects at the row's start, after a collection
	rssReset bool   // the kernel's peak RSS was reset for this row
	stop     chan struct{}
	done     sync.WaitGroup
	mu       sync.Mutex
	peak     uint64 // largest heap objects seen
}

// heapObjectsMetric is the bytes held by heap objects, live or not yet swept
// (runtime/metrics reads it without stopping the world, unlike ReadMemStats).
const heapObjectsMetric = "/memory/classes/heap/objects:bytes"

// samplePeriod is how often the heap is sampled. The heap of a search that
// stores states only grows until the row ends, and the sampler reads it once
// more then, so a coarser period loses little; a finer one would cost time.
const samplePeriod = 5 * time.Millisecond

// startMemorySampler collects garbage, returns freed memory to the operating
// system, so that the row starts from the smallest heap and resident set the
// process can have, notes them, and samples the heap until stop is called.
func startMemorySampler() *memorySampler {
	debug.FreeOSMemory() // a collection, then the freed pages back to the OS
	m := &memorySampler{stop: make(chan struct{})}
	m.baseline = readHeapObjects()
	m.peak = m.baseline
	m.rssReset = resetPeakRSS()
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		tick := time.NewTicker(samplePeriod)
		defer tick.Stop()
		for {
			m.sample()
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

func (m *memorySampler) sample() {
	h := readHeapObjects()
	m.mu.Lock()
	m.peak = max(m.peak, h)
	m.mu.Unlock()
}

// finish samples once more (what the engine allocated is still on the heap
// until the next collection, however short the row) and returns the peak
// heap above the baseline and the peak resident set size, both in bytes; rss
// is 0 where the kernel's peak could not be reset or read.
func (m *memorySampler) finish() (heap, rss uint64) {
	close(m.stop)
	m.done.Wait()
	m.sample()
	if m.rssReset {
		rss = readPeakRSS()
	}
	return m.peak - m.baseline, rss
}

func readHeapObjects() uint64 {
	s := []metrics.Sample{{Name: heapObjectsMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// resetPeakRSS sets the kernel's record of the process's peak resident set
// size (VmHWM) to its current resident set size (proc(5), clear_refs value 5),
// and reports whether it could.
func resetPeakRSS() bool {
	f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	_, werr := f.WriteString("5")
	cerr := f.Close()
	return werr == nil && cerr == nil
}

// readPeakRSS is VmHWM from /proc/self/status in bytes, or 0.
func readPeakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
