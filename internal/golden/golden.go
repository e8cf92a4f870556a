// Package golden holds the golden relayout vectors (golden.txt: small
// relayouts whose destination memory is spelled out letter by letter, from
// the examples of XLA's tiled-layout documentation and our own), for
// the tests of every layer that checks them.
package golden

import (
	_ "embed"
	"strings"
)

//go:embed golden.txt
var text string

// Case is one golden vector: the destination bytes of a relayout, with
// logical element k (row-major) shown as the k-th letter and padding "_".
type Case struct {
	From, To, Want string
}

// Cases returns the golden vectors in file order.
func Cases() []Case {
	var cs []Case
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		cs = append(cs, Case{From: f[0], To: f[1], Want: f[2]})
	}
	return cs
}
