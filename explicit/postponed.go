package explicit

import "kbmc/ir"

// A parallel stateful search (dfs --stateful, persistent's and process-local's
// exhaustive phase) that reaches a state another worker is exploring puts it
// off: it explores the state's siblings first and comes back to it when they
// are done, by which time the other worker has usually finished it and its
// record gives its height. The height of a state is the largest of its
// successors', in any order, so putting one off changes only the work: two
// workers that reach the same states would otherwise explore them side by side
// (dfs --stateful on indexer N = 6: 15.8 million transitions on two workers
// against 9.7 million on one; put off, 11.3 million). A state is put off once:
// coming back to it, the search explores it even if it is still under way
// elsewhere, as the sequential search would.

// putOff is what a search's exploration of a state returns instead of a height
// when it puts the state off.
const putOff = -1

// postponed is the successors of one state that a search put off: their states
// and the moves that reach them, kept in buffers that are reused, so that
// putting a state off allocates nothing once they have grown.
type postponed struct {
	cells   []int64 // the states, one after another
	threads []int
	choices []int64 // the moves' choices, one after another
	ends    []int   // ends[i]: where move i's choices end in choices
}

// add puts off state, reached by mv.
func (l *postponed) add(state ir.State, mv ir.Move) {
	l.cells = append(l.cells, state...)
	l.threads = append(l.threads, mv.Thread)
	l.choices = append(l.choices, mv.Choices...)
	l.ends = append(l.ends, len(l.choices))
}

func (l *postponed) len() int { return len(l.threads) }

// drain copies the states put off, in turn, into state and their moves into mv,
// and calls explore for each while it returns true; then it forgets them all and
// gives mv back its own buffer for choices (the executor fills it in place).
func (l *postponed) drain(state ir.State, mv *ir.Move, explore func() bool) {
	own := *mv
	n, from := len(state), 0
	for i, t := range l.threads {
		copy(state, l.cells[i*n:(i+1)*n])
		*mv = ir.Move{Thread: t, Choices: l.choices[from:l.ends[i]:l.ends[i]]}
		from = l.ends[i]
		if !explore() {
			break
		}
	}
	*mv = own
	l.clear()
}

func (l *postponed) clear() {
	l.cells, l.threads, l.choices, l.ends = l.cells[:0], l.threads[:0], l.choices[:0], l.ends[:0]
}
