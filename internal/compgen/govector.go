package compgen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"kbmc/detect"
)

// WriteGoVector writes c as GoVector would have logged it, one NAME-Log.txt per
// process in dir: the process name and its vector clock (sorted keys, ", "
// between entries, no zero entries), then the event's text followed by the
// variables it set as key=value. It is for measuring kbmc detect end to end on
// large logs.
func WriteGoVector(c *detect.Computation, dir string) error {
	order := make([]int, c.N()) // processes by name, as GoVector sorts clock keys
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c.Procs[a].Name < c.Procs[b].Name {
			return -1
		}
		return 1
	})
	for p, pr := range c.Procs {
		f, err := os.Create(filepath.Join(dir, pr.Name+"-Log.txt"))
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		var line []byte
		for k := 1; k <= len(pr.Events); k++ {
			clock := c.Clock(p, k)
			line = append(line[:0], pr.Name...)
			line = append(line, " {"...)
			first := true
			for _, j := range order {
				if clock[j] == 0 {
					continue
				}
				if !first {
					line = append(line, ", "...)
				}
				first = false
				line = strconv.AppendQuote(line, c.Procs[j].Name)
				line = append(line, ':')
				line = strconv.AppendInt(line, int64(clock[j]), 10)
			}
			line = append(line, "}\n"...)
			line = append(line, pr.Events[k-1].Kind.String()...)
			for _, s := range c.Sets(p, k) {
				line = fmt.Appendf(line, " %s=%s", s.Name, s.Value)
			}
			line = append(line, '\n')
			if _, err := w.Write(line); err != nil {
				f.Close()
				return err
			}
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
