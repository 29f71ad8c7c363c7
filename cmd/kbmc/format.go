package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// formatDuration prints a duration as people read it: 52µs, 4.2ms, 420ms, 12.3s,
// 1m15.5s, 2h3m4s.
func formatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "-" + formatDuration(-d)
	case d == 0:
		return "0s"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Millisecond:
		return trimZero(fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))) + "ms"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Round(time.Millisecond).Milliseconds())
	case d < time.Minute:
		return trimZero(fmt.Sprintf("%.1f", d.Seconds())) + "s"
	case d < time.Hour:
		d = d.Round(100 * time.Millisecond)
		m := d / time.Minute
		return fmt.Sprintf("%dm%ss", m, trimZero(fmt.Sprintf("%.1f", (d-m*time.Minute).Seconds())))
	}
	return d.Round(time.Second).String()
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// formatCount groups a large count's digits: 71718331 → 71,718,331.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// plural counts things: "1 part", "3 parts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return formatCount(int64(n)) + " " + noun + "s"
}
