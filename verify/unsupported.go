package verify

import (
	"fmt"

	"kbmc/ir"
)

// An UnsupportedError says that an engine cannot handle a construct of the program.
// It is an input error (exit code 2), reported at the construct's position.
type UnsupportedError struct {
	Pos    ir.Pos
	Engine string
	Msg    string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Pos, e.Engine, e.Msg)
}
