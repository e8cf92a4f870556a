package main

import (
	"io"
)

// planCmd prints the explanation of the plan from --from to --to.
func planCmd(args []string, _ io.Reader, stdout, _ io.Writer) error {
	var f planFlags
	c := newCommand("plan", "plan --from SHAPE --to SHAPE [--pad VALUE] [--pad-to WIDTHS] [--threads N]",
		"plan compiles the relayout from --from to --to and prints the plan: its loop nest,\n"+
			"strides, kernel and why they were chosen. It moves no data.")
	f.register(c.fs)
	if _, err := c.parse(args, 0, stdout); err != nil {
		return err
	}
	p, err := f.compile(c)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, p.String())
	return err
}
