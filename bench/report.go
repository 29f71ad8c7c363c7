package bench

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var header = []string{"family", "n", "engine", "verdict", "executions", "transitions", "states",
	"depth", "variables", "clauses", "conflicts", "solve_ms", "time_ms", "peak_heap_mb", "peak_rss_mb", "note",
	"depth_bound", "timeout_s", "kbmc_version"}

func (r Row) fields() []string {
	count := func(n int64, applies bool) string {
		if !applies {
			return "" // the engine has no such counter: an empty cell, not a zero
		}
		return strconv.FormatInt(n, 10)
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64) }
	mb := func(b uint64) string { return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) }
	rss := ""
	if r.PeakRSS > 0 {
		rss = mb(r.PeakRSS) // 0: the kernel did not say, an empty cell
	}
	symbolic := strings.HasPrefix(r.Engine, "symbolic")
	solveMS := ""
	if symbolic {
		solveMS = ms(r.SolveTime)
	}
	return []string{r.Family, strconv.Itoa(r.N), r.Engine, r.Verdict,
		count(r.Executions, !symbolic), count(r.Trans, !symbolic), count(r.States, !symbolic && r.HasStates),
		count(r.Depth, symbolic), count(r.Variables, symbolic), count(r.Clauses, symbolic),
		count(r.Conflicts, symbolic && r.Conflicts >= 0), solveMS, ms(r.Time),
		mb(r.PeakHeap), rss, r.Note,
		count(int64(r.Bound), r.Bound > 0), count(int64(r.Timeout/time.Second), r.Timeout > 0), r.Version}
}

// CSVWriter writes rows as CSV one at a time, flushing each, so that the file
// holds every row measured so far.
type CSVWriter struct{ cw *csv.Writer }

// NewCSVWriter writes the header.
func NewCSVWriter(w io.Writer) (*CSVWriter, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return nil, err
	}
	cw.Flush()
	return &CSVWriter{cw}, cw.Error()
}

// Write writes one row and flushes it.
func (c *CSVWriter) Write(r Row) error {
	if err := c.cw.Write(r.fields()); err != nil {
		return err
	}
	c.cw.Flush()
	return c.cw.Error()
}

// MarkdownHeader writes the header of the Markdown table; MarkdownRow one row.
func MarkdownHeader(w io.Writer) error {
	_, err := fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	return err
}

// MarkdownRow writes one row of the Markdown table.
func MarkdownRow(w io.Writer, r Row) error {
	f := r.fields()
	for i := range f {
		f[i] = strings.ReplaceAll(f[i], "|", `\|`)
	}
	_, err := fmt.Fprintf(w, "| %s |\n", strings.Join(f, " | "))
	return err
}

// JSON is a row as kbmc bench --json prints it: counters an engine does not
// have are left out.
func (r Row) JSON() map[string]any {
	out := map[string]any{}
	for i, v := range r.fields() {
		if v == "" {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && header[i] != "note" && header[i] != "kbmc_version" {
			out[header[i]] = n
		} else if x, err := strconv.ParseFloat(v, 64); err == nil && (strings.HasSuffix(header[i], "_ms") || strings.HasSuffix(header[i], "_mb")) {
			out[header[i]] = x
		} else {
			out[header[i]] = v
		}
	}
	return out
}

// WriteCSV writes one line per row, with a header.
func WriteCSV(w io.Writer, rows []Row) error {
	c, err := NewCSVWriter(w)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := c.Write(r); err != nil {
			return err
		}
	}
	return nil
}

// WriteMarkdown writes the rows as a Markdown table.
func WriteMarkdown(w io.Writer, rows []Row) error {
	if err := MarkdownHeader(w); err != nil {
		return err
	}
	for _, r := range rows {
		if err := MarkdownRow(w, r); err != nil {
			return err
		}
	}
	return nil
}

// WritePlot draws time, executions and peak heap against N, one line per (family,
// engine), on log-scale y axes, side by side, as a PNG. Each series has its own colour and
// marker; a run that hit the time limit is a red cross at the limit; the legend
// has a panel of its own, so that it covers no data.
func WritePlot(w io.Writer, rows []Row) error {
	timePlot, execPlot, memPlot, legend := plot.New(), plot.New(), plot.New(), plot.New()
	timePlot.Title.Text, execPlot.Title.Text, memPlot.Title.Text = "wall time", "executions", "peak heap above the row's start"
	timePlot.Y.Label.Text, execPlot.Y.Label.Text, memPlot.Y.Label.Text = "ms", "executions", "MiB"
	for _, p := range []*plot.Plot{timePlot, execPlot, memPlot} {
		p.X.Label.Text = "N"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Tick.Marker = integerTicks{}
	}
	legend.HideAxes()
	legend.Legend.Top, legend.Legend.Left = true, true
	legend.Legend.ThumbnailWidth = vg.Points(24)
	type key struct{ family, engine string }
	var order []key
	series := map[key][]Row{}
	for _, r := range rows {
		k := key{r.Family, r.Engine}
		if _, ok := series[k]; !ok {
			order = append(order, k)
		}
		series[k] = append(series[k], r)
	}
	const colours, shapes = 7, 7 // plotutil's palettes
	var timeouts plotter.XYs
	for i, k := range order {
		// Distinct (colour, marker) pairs for the first 49 series.
		colour, shape := plotutil.Color(i%colours), plotutil.Shape((i+i/colours)%shapes)
		var tpts, epts, mpts plotter.XYs
		for _, r := range series[k] {
			if r.Verdict == "unknown" && r.Timeout > 0 {
				timeouts = append(timeouts, plotter.XY{X: float64(r.N), Y: float64(r.Timeout.Milliseconds())})
			}
			if r.Verdict == "error" || r.Verdict == "unknown" {
				continue
			}
			tpts = append(tpts, plotter.XY{X: float64(r.N), Y: math.Max(float64(r.Time.Microseconds())/1000, 1e-3)})
			if r.Executions > 0 {
				epts = append(epts, plotter.XY{X: float64(r.N), Y: float64(r.Executions)})
			}
			// A row that allocated next to nothing sits on the axis's floor.
			mpts = append(mpts, plotter.XY{X: float64(r.N), Y: math.Max(float64(r.PeakHeap)/(1<<20), 1e-2)})
		}
		label := k.family + " " + k.engine
		added := false
		for _, pp := range []struct {
			p   *plot.Plot
			pts plotter.XYs
		}{{timePlot, tpts}, {execPlot, epts}, {memPlot, mpts}} {
			if len(pp.pts) == 0 {
				continue
			}
			l, s, err := plotter.NewLinePoints(pp.pts)
			if err != nil {
				return err
			}
			l.Color, s.Color = colour, colour
			s.Shape = shape
			s.Radius = vg.Points(3.5)
			pp.p.Add(l, s)
			if !added {
				legend.Legend.Add(label, l, s)
				added = true
			}
		}
	}
	if len(timeouts) > 0 {
		s, err := plotter.NewScatter(timeouts)
		if err != nil {
			return err
		}
		s.Shape = draw.CrossGlyph{}
		s.Color = color.RGBA{R: 220, A: 255}
		s.Radius = vg.Points(5)
		timePlot.Add(s)
		legend.Legend.Add("time limit reached", s)
	}
	panels := []*plot.Plot{timePlot, execPlot, memPlot, legend}
	img := vgimg.New(vg.Length(len(panels))*6*vg.Inch, 6*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Inch / 4}
	canvases := plot.Align([][]*plot.Plot{panels}, tiles, dc)
	for i, p := range panels {
		p.Draw(canvases[0][i])
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// integerTicks marks the integers of the axis: N is an integer.
type integerTicks struct{}

func (integerTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	step := math.Max(1, math.Ceil((max-min)/10))
	for v := math.Ceil(min); v <= max; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}

// ReadCSV reads rows that WriteCSV or a CSVWriter wrote (several files may be
// concatenated, each with its header), so that reports of a campaign measured
// in pieces can be drawn together.
func ReadCSV(r io.Reader) ([]Row, error) {
	records, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading bench CSV: %w", err)
	}
	var rows []Row
	var columns map[string]int
	for line, rec := range records {
		if len(rec) > 0 && rec[0] == header[0] {
			columns = map[string]int{}
			for i, name := range rec {
				columns[name] = i
			}
			continue
		}
		if columns == nil {
			return nil, fmt.Errorf("bench CSV line %d: a row before the header", line+1)
		}
		row, err := parseRow(rec, columns)
		if err != nil {
			return nil, fmt.Errorf("bench CSV line %d: %w", line+1, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// parseRow is fields' inverse: an empty cell is a counter the engine does not
// have (zero, or -1 for conflicts).
func parseRow(rec []string, columns map[string]int) (Row, error) {
	var firstErr error
	cell := func(name string) string {
		i, ok := columns[name]
		if !ok || i >= len(rec) {
			return ""
		}
		return rec[i]
	}
	integer := func(name string) int64 {
		s := cell(name)
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", name, err)
		}
		return n
	}
	decimal := func(name string) float64 {
		s := cell(name)
		if s == "" {
			return 0
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s: %w", name, err)
		}
		return x
	}
	ms := func(name string) time.Duration { return time.Duration(decimal(name) * float64(time.Millisecond)) }
	mib := func(name string) uint64 { return uint64(decimal(name) * (1 << 20)) }
	r := Row{Family: cell("family"), N: int(integer("n")), Engine: cell("engine"), Verdict: cell("verdict"),
		Executions: integer("executions"), Trans: integer("transitions"), States: integer("states"),
		HasStates: cell("states") != "", Depth: integer("depth"), Variables: integer("variables"),
		Clauses: integer("clauses"), Conflicts: integer("conflicts"), SolveTime: ms("solve_ms"),
		Time: ms("time_ms"), PeakHeap: mib("peak_heap_mb"), PeakRSS: mib("peak_rss_mb"), Note: cell("note"),
		Bound: int(integer("depth_bound")), Timeout: time.Duration(integer("timeout_s")) * time.Second,
		Version: cell("kbmc_version")}
	if cell("conflicts") == "" {
		r.Conflicts = -1
	}
	return r, firstErr
}
