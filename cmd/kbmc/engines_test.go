package main

import "testing"

func TestEngineByName(t *testing.T) {
	tests := []struct {
		name              string
		engine, algo, tcs string
		solver, por       string
		encoding          string
		wantErr           bool
	}{
		{name: "explicit/dfs", engine: "explicit", algo: "dfs"},
		{name: "explicit/lazypor", engine: "explicit", algo: "lazypor"},
		{name: "explicit/lazypor/gini", engine: "explicit", algo: "lazypor", tcs: "gini"},
		{name: "explicit/lazypor/topo", engine: "explicit", algo: "lazypor", tcs: "topo"},
		// No encoding named: the engine's default (partial-order, or step for a
		// program with invariants).
		{name: "symbolic/gini", engine: "symbolic", solver: "gini", por: "monotonic", encoding: ""},
		{name: "symbolic/gini/none", engine: "symbolic", solver: "gini", por: "none", encoding: "step"},
		{name: "symbolic/z3/peephole", engine: "symbolic", solver: "z3", por: "peephole", encoding: "step"},
		{name: "symbolic/gini/partial-order", engine: "symbolic", solver: "gini", por: "monotonic", encoding: "partial-order"},
		{name: "symbolic/gini/step", engine: "symbolic", solver: "gini", por: "monotonic", encoding: "step"},
		{name: "symbolic/portfolio", engine: "symbolic", solver: "portfolio", por: "monotonic", encoding: ""},
		{name: "symbolic/portfolio/peephole", engine: "symbolic", solver: "portfolio", por: "peephole", encoding: "step"},
		{name: "dfs", wantErr: true},
		{name: "explicit/lazypor/minisat", wantErr: true},
		{name: "explicit/dpor/gini", wantErr: true},
		{name: "symbolic/gini/bogus", wantErr: true},
	}
	for _, tc := range tests {
		ec, err := engineByName(tc.name, engineConfig{})
		if tc.wantErr {
			if err == nil {
				t.Errorf("%s: accepted", tc.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if ec.Engine != tc.engine || ec.Algo != tc.algo || ec.Explicit.TCSSolver != tc.tcs || ec.Solver != tc.solver || ec.POR != tc.por || ec.Encoding != tc.encoding {
			t.Errorf("%s: got %+v", tc.name, ec)
		}
	}
}
