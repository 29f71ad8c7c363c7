package gini_test

import (
	"testing"

	"kbmc/solver/gini"
	"kbmc/solver/internal/solvertest"
)

func TestConformance(t *testing.T) {
	solvertest.Conformance(t, gini.New)
}
