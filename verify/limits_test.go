package verify

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestStopReason(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("%w of 1.0 GB", ErrMemoryLimit), "memory"},
		{fmt.Errorf("%w 2s", ErrTimeLimit), "time"},
		{context.Cause(ctx), "time"},
		{ErrInterrupted, "interrupt"},
		{context.Canceled, "interrupt"},
		{errors.New("z3: unknown"), ""},
	}
	for _, tt := range tests {
		if got := StopReason(tt.err); got != tt.want {
			t.Errorf("StopReason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestDecideSaysWhyItStopped(t *testing.T) {
	o := &Outcome{Stopped: fmt.Errorf("%w of 64 MiB", ErrMemoryLimit)}
	r := o.Decide()
	if r.Verdict != Unknown || r.Stopped != "memory" || r.Note != "stopped: memory limit of 64 MiB" {
		t.Errorf("Decide = %v, stopped %q, note %q", r.Verdict, r.Stopped, r.Note)
	}
}

// TestWatchMemoryStops allocates live memory until the watch ends the context,
// which must happen with ErrMemoryLimit and before the heap is far past the
// limit.
func TestWatchMemoryStops(t *testing.T) {
	const limit = 128 << 20
	base := ResidentMemory()
	ctx, w := WatchMemory(context.Background(), base+limit)
	defer w.Stop()
	var keep [][]byte
	for ctx.Err() == nil {
		if int64(len(keep)) > 2*(base+limit)>>20 {
			t.Fatalf("allocated %d MiB of live memory and the watch did not stop it", len(keep))
		}
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = byte(i) // touch it, so that it is resident
		}
		keep = append(keep, b)
		time.Sleep(50 * time.Microsecond)
	}
	if err := context.Cause(ctx); !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("the context ended with %v, want the memory limit", err)
	}
	if w.Peak() > base+limit+limit/4 {
		t.Errorf("peak %s, limit %s above %s", FormatBytes(w.Peak()), FormatBytes(limit), FormatBytes(base))
	}
	t.Logf("stopped at %d MiB allocated, peak resident %s", len(keep), FormatBytes(w.Peak()))
}

func TestWatchMemoryWithoutLimit(t *testing.T) {
	ctx, w := WatchMemory(context.Background(), 0)
	w.Stop()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("a watch without a limit ended its context with %v", err)
	}
}

func TestDefaultMemoryLimit(t *testing.T) {
	if n := DefaultMemoryLimit(); n < 0 {
		t.Errorf("DefaultMemoryLimit = %d", n)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1.0 GiB", 512 << 20: "512 MiB", 1e9: "1.0 GB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
