package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"kbmc/cfront"
	"kbmc/explicit"
	"kbmc/ir"
)

func main() {
	src, _ := os.ReadFile(os.Args[1])
	p, err := cfront.Compile(os.Args[1], src, cfront.Config{Phantoms: true})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := explicit.Hunt(ctx, p, explicit.HuntOptions{Want: func(v *ir.Violation) bool { return v.Kind == ir.ReachError }})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, res.Note, len(res.Trace))
	s := p.Initial()
	var ev ir.Event
	for i, m := range res.Trace {
		tr := p.Transition(s, m.Thread)
		n := tr.EntryNode()
		ch := ir.Choices{Fixed: m.Choices}
		p.Step(s, m.Thread, &ch, &ev)
		if p.Threads[m.Thread].Name == "main" {
			continue
		}
		fmt.Println(i+1, p.Threads[m.Thread].Name, n.Pos.Line, n.Text, m.Choices, "MTX/COND/buf:", s[0], s[1], s[2])
	}
}
