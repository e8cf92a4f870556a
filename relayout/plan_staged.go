package relayout

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tilecopy/tilecopy"
)

// staged is how a plan with a packed side runs: unpack the source to one
// byte per element, relayout bytes with a byte plan, pack the result. Each
// stage is one streaming pass; the price is a temporary buffer of one byte
// per element for each packed side.
type staged struct {
	mid *Plan // the byte plan between the unpacked shapes

	unpack   bool // the source is packed
	srcBits  int  // its storage bits per element
	srcCount int64

	pack     bool // the destination is packed
	dstBits  int
	dstCount int64

	natural int  // the type's bits
	signed  bool // whether unpacking sign-extends

	// fields, when set, runs the relayout instead of the three stages: a
	// transpose of packed fields without unpacking them.
	fields *fieldPlan

	// temps keeps the temporary byte buffers between Runs (*[]byte of
	// srcCount+dstCount bytes): faulting in fresh pages costs as much as
	// a stage.
	temps sync.Pool
}

// unpacked returns s with one byte per element.
func unpacked(s Shape) Shape {
	c := s.clone()
	c.layout.ElementSizeInBits = 0
	return c
}

// compileStaged plans a relayout in which from or to packs sub-byte
// elements.
func compileStaged(p *Plan, opts *Options) error {
	mid, err := compile(unpacked(p.from), unpacked(p.to), opts, p.streamMin)
	if err != nil {
		return err
	}
	p.stage = &staged{
		mid:      mid,
		unpack:   p.from.isPacked(),
		srcBits:  int(p.fm.ElementBits()),
		srcCount: p.fm.Elements(),
		pack:     p.to.isPacked(),
		dstBits:  int(p.tm.ElementBits()),
		dstCount: p.tm.Elements(),
		natural:  p.dtype.Bits(),
		signed:   p.dtype.IsSigned(),
	}
	p.stage.fields = planFields(p, mid)
	return nil
}

// run runs the stages; the buffers have been checked.
func (st *staged) run(dst, src []byte) error {
	if st.fields != nil {
		st.fields.run(dst, src)
		return nil
	}
	tmp := getTemp(&st.temps, st.tempBytes())
	defer st.temps.Put(tmp)
	a := src
	if st.unpack {
		a = (*tmp)[:st.srcCount]
		tilecopy.UnpackBits(a, src, int(st.srcCount), st.srcBits, st.natural, st.signed)
	}
	b := dst
	if st.pack {
		b = (*tmp)[len(*tmp)-int(st.dstCount):]
	}
	if err := st.mid.Run(b, a); err != nil {
		return fmt.Errorf("byte stage: %w", err)
	}
	if st.pack {
		tilecopy.PackBits(dst, b, int(st.dstCount), st.dstBits)
	}
	return nil
}

// getTemp returns a temporary buffer of n bytes from pool, or a new one
// when it has none; the caller puts it back.
func getTemp(pool *sync.Pool, n int64) *[]byte {
	if v := pool.Get(); v != nil {
		return v.(*[]byte)
	}
	t := make([]byte, n)
	return &t
}

// tempBytes is the size of the temporary buffers of one Run.
func (st *staged) tempBytes() int64 {
	var n int64
	if st.unpack {
		n += st.srcCount
	}
	if st.pack {
		n += st.dstCount
	}
	return n
}

// explain describes the stages for Plan.String.
func (st *staged) explain(b *strings.Builder) {
	if st.fields != nil {
		st.fields.explain(b)
		return
	}
	if st.unpack {
		fmt.Fprintf(b, "  stage 1: unpack %d-bit fields to bytes (%d elements)\n", st.srcBits, st.srcCount)
	}
	b.WriteString("  stage 2: byte plan:\n")
	for _, line := range strings.SplitAfter(strings.TrimRight(st.mid.String(), "\n"), "\n") {
		b.WriteString("    " + line)
	}
	b.WriteString("\n")
	if st.pack {
		fmt.Fprintf(b, "  stage 3: pack bytes to %d-bit fields (%d elements)\n", st.dstBits, st.dstCount)
	}
	fmt.Fprintf(b, "  temporary memory: %d bytes per concurrent Run\n", st.tempBytes())
}
