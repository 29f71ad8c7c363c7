package main

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{52 * time.Microsecond, "52µs"},
		{4200 * time.Microsecond, "4.2ms"},
		{5 * time.Millisecond, "5ms"},
		{420 * time.Millisecond, "420ms"},
		{12340 * time.Millisecond, "12.3s"},
		{75500 * time.Millisecond, "1m15.5s"},
		{2*time.Minute + 30*time.Millisecond, "2m0s"},
		{2*time.Hour + 3*time.Minute + 4*time.Second, "2h3m4s"},
	} {
		if got := formatDuration(tc.d); got != tc.want {
			t.Errorf("formatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 71718331: "71,718,331", -1234: "-1,234"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}
