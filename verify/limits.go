package verify

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dustin/go-humanize"
)

// The causes a run's context ends with when a limit stops it. Engines report
// context.Cause as Outcome.Stopped, and StopReason names it for the output.
var (
	ErrTimeLimit   = errors.New("time limit")
	ErrMemoryLimit = errors.New("memory limit")
	ErrInterrupted = errors.New("interrupted")
)

// StopReason names why a run stopped, for the text and JSON output: "time",
// "memory" or "interrupt", or "" when err is none of the limits.
func StopReason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrMemoryLimit):
		return "memory"
	case errors.Is(err, ErrTimeLimit), errors.Is(err, context.DeadlineExceeded):
		return "time"
	case errors.Is(err, ErrInterrupted), errors.Is(err, context.Canceled):
		return "interrupt"
	}
	return ""
}

// A MemoryWatch ends a context when the process uses more memory than its
// limit. The Go runtime cannot recover from running out of memory (it dies with
// a fatal error and a goroutine dump), so a search that fills memory must be
// stopped before: the watch samples the heap every few milliseconds and ends
// the context with ErrMemoryLimit when
//
//   - the live heap (what the last garbage collection kept) passes 85 % of
//     the limit, or
//   - the process's resident memory, which includes what C libraries such as
//     Z3 allocate, passes 95 % of the limit: the run grows while the watch
//     sleeps between samples, and a C library's allocations are not slowed by
//     the Go runtime's soft limit, so the margin keeps the peak under the limit.
//
// It also sets the Go runtime's soft memory limit (debug.SetMemoryLimit) to 90 %
// of the limit, so that the collector works harder before the watch has to stop the
// run for garbage it could have freed.
type MemoryWatch struct {
	limit  int64
	peak   atomic.Int64
	cancel context.CancelCauseFunc
	done   chan struct{}
	stop   chan struct{}
	soft   int64 // the runtime's soft limit before the watch
}

// memoryPoll is how often the watch samples. At a few GB/s of allocation a
// search can add a few tens of MB between samples, which the 15 % margin of
// the live-heap test and the headroom under the machine's memory absorb.
const memoryPoll = 5 * time.Millisecond

// WatchMemory returns a context that ends with ErrMemoryLimit when the process
// passes limit bytes (limit ≤ 0: never), and the watch, which the caller must
// Stop when the run is over.
func WatchMemory(ctx context.Context, limit int64) (context.Context, *MemoryWatch) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &MemoryWatch{limit: limit, cancel: cancel, done: make(chan struct{}), stop: make(chan struct{})}
	if limit <= 0 {
		close(w.done)
		return ctx, w
	}
	w.soft = debug.SetMemoryLimit(limit / 10 * 9)
	go w.run(ctx)
	return ctx, w
}

func (w *MemoryWatch) run(ctx context.Context) {
	defer close(w.done)
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(memoryPoll)
	defer tick.Stop()
	for {
		metrics.Read(samples)
		live := int64(0)
		if samples[0].Value.Kind() == metrics.KindUint64 {
			live = int64(min(samples[0].Value.Uint64(), math.MaxInt64))
		}
		rss := ResidentMemory()
		w.peak.Store(max(w.peak.Load(), rss))
		if live > w.limit/100*85 || rss > w.limit/100*95 {
			w.cancel(fmt.Errorf("%w of %s", ErrMemoryLimit, FormatBytes(w.limit)))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-w.stop:
			return
		case <-tick.C:
		}
	}
}

// Stop ends the watch and restores the runtime's soft memory limit.
func (w *MemoryWatch) Stop() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	if w.limit > 0 {
		debug.SetMemoryLimit(w.soft)
	}
	w.cancel(nil)
}

// Peak is the largest resident memory the watch saw, in bytes.
func (w *MemoryWatch) Peak() int64 { return w.peak.Load() }

// ResidentMemory is the process's resident set size in bytes, from
// /proc/self/statm; where that is missing, the memory the Go runtime holds.
func ResidentMemory() int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return pages * int64(os.Getpagesize())
			}
		}
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// DefaultMemoryLimit is 80 % of the memory the process may use: the smaller
// of the machine's memory and its cgroup's limit (a container's, a Slurm
// job's), or 0 (no limit) when neither can be read.
func DefaultMemoryLimit() int64 {
	avail := int64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
					avail = kb << 10
				}
			}
		}
		f.Close()
	}
	if n := cgroupMemoryLimit(); n > 0 && (avail == 0 || n < avail) {
		avail = n
	}
	return avail / 10 * 8
}

// cgroupMemoryLimit is the tightest memory limit of the process's cgroup and
// its ancestors (a Slurm step sits below its job, which holds the limit), or 0.
func cgroupMemoryLimit() int64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	limit := int64(0)
	tighten := func(file string) {
		b, err := os.ReadFile(file)
		if err != nil {
			return
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64) // "max": none
		if err == nil && n > 0 && (limit == 0 || n < limit) {
			limit = n
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		// hierarchy-ID:controllers:path; v2 is "0::path", v1 names "memory".
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var root, file string
		switch {
		case f[0] == "0" && f[1] == "":
			root, file = "/sys/fs/cgroup", "memory.max"
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			root, file = "/sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for dir := path.Clean("/" + f[2]); ; dir = path.Dir(dir) {
			tighten(path.Join(root, dir, file))
			if dir == "/" {
				break
			}
		}
	}
	return limit
}

// FormatBytes renders a size the way people write it: in binary units when it
// is a whole number of MiB (512 MiB, 4.0 GiB), else in decimal ones (1.0 GB).
func FormatBytes(n int64) string {
	if n%(1<<20) == 0 {
		return humanize.IBytes(uint64(n))
	}
	return humanize.Bytes(uint64(n))
}
