// Command relayout describes XLA shapes, explains relayout plans and
// converts raw array files between memory layouts.
//
// Usage:
//
//	relayout VERB [flags] [args]
//
// Run "relayout help" for the list of verbs and "relayout VERB -h" for the
// flags of one. Flags may come before or after the positional arguments;
// "--" ends the flags. Errors print one line on stderr, prefixed
// "relayout: ", and exit with status 1; usage errors exit with status 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// verbFunc runs one verb with the arguments after the verb's name.
type verbFunc func(args []string, stdin io.Reader, stdout, stderr io.Writer) error

// verb is one entry of the command table.
type verb struct {
	name    string
	summary string // one line for "relayout help"
	run     verbFunc
}

// verbs returns the command table in the order "relayout help" lists it.
// To add a verb, add one entry here and its function in a file of its own.
func verbs() []verb {
	return []verb{
		{"describe", "print the canonical text, sizes and padding of a shape", describeCmd},
		{"plan", "explain the plan that relayouts --from into --to", planCmd},
		{"convert", "relayout an array file (raw little-endian or .npy) from --from to --to", convertCmd},
		{"pad", "pad and tile an array for a device (--preset tpu), as relayout.Upload does", padCmd},
		{"unpad", "undo pad: untile a device array and drop its padding, as relayout.Download does", unpadCmd},
		{"demo", "relayout a built-in f32 array (1000x1000), check it against the reference, time it", demoCmd},
		{"bench", "measure relayout throughput against the machine's copy limit", cmdBench},
		{"cpu", "print the CPU features and the kernel chosen for each element width", cmdCPU},
		{"tune", "measure this machine's fastest bulk copy and write the tuning for TILECOPY_TUNING", cmdTune},
	}
}

// Exit statuses of run.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// run executes the command line args (without the program name) and
// returns the process exit status. It never panics: a panic inside a verb
// is reported as one error line.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return dispatch(verbs(), args, stdin, stdout, stderr)
}

// dispatch runs the verb of table named by args[0].
func dispatch(table []verb, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "relayout: internal error: %v\n", oneLine(fmt.Sprint(r)))
			code = exitError
		}
	}()
	if len(args) == 0 {
		writeHelp(stderr, table)
		return exitUsage
	}
	name := args[0]
	if isHelp(name) {
		if len(args) > 1 && !isHelp(args[1]) {
			// "relayout help VERB" is "relayout VERB -h". "relayout help
			// help" (or "help -h", "-h -h") is "relayout help": asking
			// for the help of help must not ask again, and again.
			return dispatch(table, []string{args[1], "-h"}, stdin, stdout, stderr)
		}
		writeHelp(stdout, table)
		return exitOK
	}
	for _, v := range table {
		if v.name != name {
			continue
		}
		err := v.run(args[1:], stdin, stdout, stderr)
		var ue *usageError
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "relayout: %s: %s\n", name, oneLine(ue.msg))
			if ue.usage != "" {
				fmt.Fprint(stderr, ue.usage)
			}
			return exitUsage
		default:
			fmt.Fprintf(stderr, "relayout: %s: %s\n", name, oneLine(err.Error()))
			return exitError
		}
	}
	fmt.Fprintf(stderr, "relayout: unknown verb %q (run \"relayout help\" for the list)\n", name)
	return exitUsage
}

// isHelp reports whether arg asks for the list of verbs.
func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// writeHelp prints the list of verbs in table.
func writeHelp(w io.Writer, table []verb) {
	fmt.Fprint(w, "relayout moves N-dimensional arrays between XLA memory layouts.\n\n")
	fmt.Fprint(w, "usage: relayout VERB [flags] [args]\n\nverbs:\n")
	for _, v := range table {
		fmt.Fprintf(w, "  %-9s %s\n", v.name, v.summary)
	}
	fmt.Fprint(w, "  help      print this list; \"relayout help VERB\" prints the flags of VERB\n")
	fmt.Fprint(w, "\nShapes are XLA shape text, e.g. 'bf16[8,128]{1,0:T(8,128)(2,1)}'; quote them for the shell.\n")
}

// oneLine makes an error message fit on one line.
func oneLine(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\r", "")
	return strings.ReplaceAll(s, "\n", "; ")
}

// usageError is a command-line mistake: run prints it with the verb's
// usage and exits with status 2.
type usageError struct {
	msg   string
	usage string // the verb's usage text, newline-terminated; may be empty
}

func (e *usageError) Error() string { return e.msg }
