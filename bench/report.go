package bench

import (
	"encoding/csv"
	"fmt"
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
	"depth", "variables", "clauses", "conflicts", "solve_ms", "time_ms", "peak_heap_mb", "note"}

func (r Row) fields() []string {
	count := func(n int64, applies bool) string {
		if !applies {
			return "" // the engine has no such counter: an empty cell, not a zero
		}
		return strconv.FormatInt(n, 10)
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64) }
	symbolic := strings.HasPrefix(r.Engine, "symbolic")
	solveMS := ""
	if symbolic {
		solveMS = ms(r.SolveTime)
	}
	return []string{r.Family, strconv.Itoa(r.N), r.Engine, r.Verdict,
		count(r.Executions, !symbolic), count(r.Trans, !symbolic), count(r.States, !symbolic),
		count(r.Depth, symbolic), count(r.Variables, symbolic), count(r.Clauses, symbolic),
		count(r.Conflicts, symbolic && r.Conflicts >= 0), solveMS, ms(r.Time),
		strconv.FormatFloat(float64(r.PeakHeap)/(1<<20), 'f', 1, 64), r.Note}
}

// WriteCSV writes one line per row, with a header.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r.fields()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes the rows as a Markdown table.
func WriteMarkdown(w io.Writer, rows []Row) error {
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(header)))
	for _, r := range rows {
		f := r.fields()
		for i := range f {
			f[i] = strings.ReplaceAll(f[i], "|", `\|`)
		}
		if _, err := fmt.Fprintf(w, "| %s |\n", strings.Join(f, " | ")); err != nil {
			return err
		}
	}
	return nil
}

// WritePlot draws time and executions against N, one line per (family, engine), on
// log-scale y axes, side by side, as a PNG.
func WritePlot(w io.Writer, rows []Row) error {
	timePlot, execPlot := plot.New(), plot.New()
	timePlot.Title.Text, execPlot.Title.Text = "wall time", "executions"
	timePlot.Y.Label.Text, execPlot.Y.Label.Text = "ms", "executions"
	for _, p := range []*plot.Plot{timePlot, execPlot} {
		p.X.Label.Text = "N"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Legend.Top = true
		p.Legend.Left = true
	}
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
	for i, k := range order {
		var tpts, epts plotter.XYs
		for _, r := range series[k] {
			if r.Verdict == "error" || r.Verdict == "unknown" {
				continue
			}
			tpts = append(tpts, plotter.XY{X: float64(r.N), Y: math.Max(float64(r.Time.Microseconds())/1000, 1e-3)})
			if r.Executions > 0 {
				epts = append(epts, plotter.XY{X: float64(r.N), Y: float64(r.Executions)})
			}
		}
		label := k.family + " " + k.engine
		for _, pp := range []struct {
			p   *plot.Plot
			pts plotter.XYs
		}{{timePlot, tpts}, {execPlot, epts}} {
			if len(pp.pts) == 0 {
				continue
			}
			l, s, err := plotter.NewLinePoints(pp.pts)
			if err != nil {
				return err
			}
			l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
			s.Shape = plotutil.Shape(i)
			pp.p.Add(l, s)
			pp.p.Legend.Add(label, l, s)
		}
	}
	img := vgimg.New(2*7*vg.Inch, 6*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 4}
	canvases := plot.Align([][]*plot.Plot{{timePlot, execPlot}}, tiles, dc)
	timePlot.Draw(canvases[0][0])
	execPlot.Draw(canvases[0][1])
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}
