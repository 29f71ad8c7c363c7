package bench

import (
	"bytes"
	"context"
	"encoding/csv"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"kbmc/explicit"
	"kbmc/ir"
	"kbmc/verify"
)

// holdingEngine allocates size bytes, touches every page so that they are
// resident, and keeps them until Check returns: a row whose memory is known.
type holdingEngine struct{ size int }

func (e holdingEngine) Check(ctx context.Context, p *ir.Program) (*verify.Result, error) {
	buf := make([]byte, e.size)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	res := &verify.Result{Verdict: verify.Safe}
	runtime.KeepAlive(buf)
	return res, nil
}

// TestPeakMemoryPerRow checks that a row's peak heap and peak RSS cover what
// it held, and that a later row that holds nothing is not charged for the
// earlier row's memory (each row is measured above its own start).
func TestPeakMemoryPerRow(t *testing.T) {
	const held = 64 << 20
	engines := map[string]verify.Engine{"holds-64MiB": holdingEngine{held}, "holds-nothing": holdingEngine{0}}
	rows, err := Run(context.Background(), Config{
		Families: []Family{{Name: "peterson"}}, Engines: []string{"holds-64MiB", "holds-nothing"}, From: 2, To: 2,
		New: func(name string) (verify.Engine, error) { return engines[name], nil },
	})
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %v, error %v", rows, err)
	}
	big, none := rows[0], rows[1]
	if big.PeakHeap < held {
		t.Errorf("a row holding %d MiB has a peak heap of %.1f MiB", held>>20, float64(big.PeakHeap)/(1<<20))
	}
	if none.PeakHeap >= held/4 {
		t.Errorf("a row holding nothing after one holding %d MiB has a peak heap of %.1f MiB", held>>20, float64(none.PeakHeap)/(1<<20))
	}
	if !resetPeakRSS() {
		t.Log("no /proc/self/clear_refs: the RSS column stays empty here")
		return
	}
	if big.PeakRSS < held {
		t.Errorf("a row holding %d MiB has a peak RSS of %.1f MiB", held>>20, float64(big.PeakRSS)/(1<<20))
	}
	if none.PeakRSS == 0 || none.PeakRSS+held/2 > big.PeakRSS {
		t.Errorf("peak RSS %.1f MiB after a row of %.1f MiB: the earlier row's peak was not reset",
			float64(none.PeakRSS)/(1<<20), float64(big.PeakRSS)/(1<<20))
	}
}

// TestPeakMemoryColumns runs a real stateful search and checks that the CSV,
// Markdown and JSON reports carry its peak memory, and that it is not zero:
// the visited set of thousands of states takes room.
func TestPeakMemoryColumns(t *testing.T) {
	rows, err := Run(context.Background(), Config{
		Families: []Family{{Name: "token-ring"}}, Engines: []string{"explicit/dfs/stateful"}, From: 3, To: 3,
		New: func(string) (verify.Engine, error) {
			return explicit.New("dfs", explicit.Options{Options: verify.Options{Depth: 200}, Stateful: true, Workers: 1})
		},
	})
	if err != nil || len(rows) != 1 || rows[0].Verdict != "safe" || rows[0].States < 1000 {
		t.Fatalf("rows %+v, error %v", rows, err)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	table, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(table) != 2 {
		t.Fatalf("CSV %q: %v", buf.String(), err)
	}
	cell := func(column string) float64 {
		i := slices.Index(table[0], column)
		if i < 0 {
			t.Fatalf("no %s column in %v", column, table[0])
		}
		x, err := strconv.ParseFloat(table[1][i], 64)
		if err != nil {
			t.Fatalf("%s = %q: %v", column, table[1][i], err)
		}
		return x
	}
	if heap := cell("peak_heap_mb"); heap <= 0 {
		t.Errorf("peak_heap_mb %v for a search that stored %d states", heap, rows[0].States)
	}
	if resetPeakRSS() {
		if rss := cell("peak_rss_mb"); rss <= cell("peak_heap_mb") {
			t.Errorf("peak_rss_mb %v is not above peak_heap_mb", rss)
		}
	}
	if x, ok := rows[0].JSON()["peak_heap_mb"].(float64); !ok || x <= 0 {
		t.Errorf("JSON peak_heap_mb = %v", rows[0].JSON()["peak_heap_mb"])
	}
	buf.Reset()
	if err := WriteMarkdown(&buf, rows); err != nil || !bytes.Contains(buf.Bytes(), []byte("| peak_heap_mb | peak_rss_mb |")) {
		t.Errorf("Markdown lacks the memory columns (%v):\n%s", err, buf.String())
	}
}
