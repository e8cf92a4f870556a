package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the README's plan example with the command's output")

// readmePath is the repository's README, from this package's directory.
const readmePath = "../../README.md"

// Markers around the README's plan example, a fenced block whose first
// line is "$ relayout ..." and whose other lines are its output.
const (
	readmeBegin = "<!-- plan example:"
	readmeEnd   = "<!-- end of plan example -->"
)

// TestReadmePlanExample runs the command of the README's plan example and
// checks that the README shows its output; with -update-readme it
// rewrites the output in the README instead.
func TestReadmePlanExample(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, readmeBegin)
	j := strings.Index(text, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", readmePath, readmeBegin, readmeEnd)
	}
	_, block, _ := strings.Cut(text[i:j], "\n") // after the marker's line
	const fence = "```console\n"
	if !strings.HasPrefix(block, fence) || !strings.HasSuffix(block, "```\n") {
		t.Fatalf("the plan example is not one ```console block:\n%s", block)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(block, fence), "```\n")
	cmdLine, shown, _ := strings.Cut(body, "\n")
	args, err := shellWords(strings.TrimPrefix(cmdLine, "$ "))
	if err != nil || len(args) < 2 || args[0] != "relayout" || !strings.HasPrefix(cmdLine, "$ ") {
		t.Fatalf("the example's first line %q is not \"$ relayout ...\" (%v)", cmdLine, err)
	}
	r := runCLI(t, nil, args[1:]...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("%s: exit %d, stderr %q", cmdLine, r.code, r.stderr)
	}
	if r.stdout == shown {
		return
	}
	if *updateReadme {
		start := i + len(text[i:j]) - len(block) + len(fence) + len(cmdLine) + 1
		out := text[:start] + r.stdout + "```\n" + text[j:]
		if err := os.WriteFile(readmePath, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the plan example in %s", readmePath)
		return
	}
	t.Errorf("the README's plan example differs from the output of %s (go test ./cmd/relayout -run TestReadmePlanExample -update-readme rewrites it)\nREADME:\n%s\noutput:\n%s",
		cmdLine, shown, r.stdout)
}

// shellWords splits a command line as a POSIX shell does for words
// separated by spaces and single-quoted strings, which is all the README's
// examples use.
func shellWords(line string) ([]string, error) {
	var words []string
	var w bytes.Buffer
	inWord, quoted := false, false
	for _, c := range line {
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteRune(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case strings.ContainsRune("\"\\$`|&;<>()*?", c):
			return nil, fmt.Errorf("%q outside single quotes: not a plain command", c)
		default:
			w.WriteRune(c)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("a single quote is not closed")
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
