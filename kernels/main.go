// Command kernels writes kernels_amd64.s, the amd64 assembly of package
// internal/kernel (block transposes, interleaves, a pattern fill and run copies
// at AVX2 and AVX-512; packing and transposes of sub-byte fields at AVX2;
// conversions between f32 and bf16 or f16 at both, and fused into the
// relayout between f32 rows and bf16 (2,1) tiles), with avo
// (github.com/mmcloughlin/avo), and beside it kernels_stubs_amd64.go,
// the registry of those kernels: their Go prototypes, each with its doc
// comment and //go:noescape, and the table asmKernels of what each one
// is (registry.go).
//
// Run it from this directory:
//
//	go run . -out ../internal/kernel/kernels_amd64.s
//
// The kernels use fixed physical registers, as the hand-written assembly it
// replaces did, so avo's register allocator has nothing to do and the
// output is that assembly instruction for instruction.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// regenerate is the command the header of the output names. It is fixed,
// not taken from the command line, so that a copy written elsewhere (CI
// compares one with the checked-in file) is byte for byte the same.
const regenerate = "cd kernels && go run . -out ../internal/kernel/kernels_amd64.s"

func main() {
	// A flag set of its own: avo's build package registers its flags
	// (-out among them) on flag.CommandLine.
	fs := flag.NewFlagSet("kernels", flag.ExitOnError)
	out := fs.String("out", "", "write the assembly to `file`, and the registry beside it (default: the assembly alone to standard output)")
	fs.Parse(os.Args[1:]) // ExitOnError: no error returned
	if fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run . [-out file]")
		os.Exit(2)
	}
	src, stubs, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kernels:", err)
		os.Exit(1)
	}
	if *out == "" {
		_, err = os.Stdout.Write(src)
	} else {
		err = os.WriteFile(*out, src, 0o644)
		if err == nil {
			err = os.WriteFile(filepath.Join(filepath.Dir(*out), stubsFile), stubs, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kernels:", err)
		os.Exit(1)
	}
}

// stubsFile is the name of the registry's Go file, which main writes in
// the directory of the assembly.
const stubsFile = "kernels_stubs_amd64.go"

// generate builds every kernel and table, runs avo's passes and returns
// the Go assembly and the registry's Go file.
func generate() (asm, stubs []byte, err error) {
	g := &gen{Context: build.NewContext()}
	g.file()
	if g.err != nil {
		return nil, nil, g.err
	}
	f, err := g.Result()
	if err != nil {
		return nil, nil, err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return nil, nil, err
	}
	cfg := printer.Config{Argv: strings.Fields(regenerate), Pkg: "kernel"}
	asm, err = printer.NewGoAsm(cfg).Print(f)
	if err != nil {
		return nil, nil, err
	}
	stubs, err = printer.NewStubs(cfg).Print(f)
	if err != nil {
		return nil, nil, err
	}
	stubs, err = g.goFile(stubs)
	return asm, stubs, err
}

// file emits the whole assembly file, in the order of the hand-written
// file it replaces (the order of functions is the order of the code in
// the linked binary).
func (g *gen) file() {
	// (amd64 || arm64) && gc && !purego && !noasm, as the Go side has it
	// (the _amd64 suffix restricts the architecture anyway).
	g.ConstraintExpr("amd64 arm64")
	g.ConstraintExpr("gc,!purego,!noasm")

	g.transposeSquare(avx512, 4, false)
	g.transposeGather(1, false)
	g.transposeGather(2, false)
	g.transposeSplit(1)
	g.transposeSplit(2)
	g.transposeSquare(avx512, 8, false)
	g.transposeSquare(avx512, 16, false)
	g.transposeSquare(avx2, 4, false)
	g.transposeWordsAVX2()
	g.transposeBytesAVX2()
	g.transposeSquare(avx2, 8, false)
	g.transposeSquare(avx2, 16, false)
	for _, w := range []int{4, 8, 16} {
		g.transposeSquare(avx512, w, true)
	}
	for _, w := range []int{4, 8, 16} {
		g.transposeLinesAVX2(w)
		g.transposeSkewAVX2(w)
	}
	g.transposeGather(1, true)
	g.transposeGather(2, true)
	g.transposeWordLines(false)
	g.transposeWordLines(true)
	for _, w := range recordWidths {
		g.transposeRecord(w)
	}
	for _, w := range recordWidthsAVX2 {
		g.transposeRecordAVX2(w)
	}
	g.storeFence()
	for _, lvl := range []*level{avx512, avx2} {
		for _, k := range []int{2, 4} {
			g.transposeTo(lvl, k)
		}
		for _, k := range []int{2, 4, 8} {
			g.transposeFrom(lvl, k)
		}
	}
	g.tables(permBytes4x16, permWords2x16)

	for _, grid := range []bool{false, true} {
		for _, inverse := range []bool{false, true} {
			for _, w := range []int{1, 2, 4} {
				for _, lvl := range []*level{avx512, avx2} {
					for _, k := range []int{2, 4} {
						g.weave(weaveSpec{lvl: lvl, k: k, width: w, inverse: inverse, grid: grid})
					}
				}
			}
		}
	}

	// 8-byte elements: AVX-512 only, 2, 3 and 4 rows, one block a
	// call (the second stage of 4 rows permutes 16-byte pairs); 16-byte
	// ones, 2 rows.
	for _, inverse := range []bool{false, true} {
		for _, k := range []int{2, 4} {
			g.weave(weaveSpec{lvl: avx512, k: k, width: 8, inverse: inverse})
		}
		g.weave3AVX512(8, inverse, false)
		g.weave(weaveSpec{lvl: avx512, k: 2, width: 16, inverse: inverse})
	}
	for _, inverse := range []bool{false, true} {
		for _, lvl := range []*level{avx512, avx2} {
			for _, w := range []int{1, 2} {
				g.weave8(lvl, w, inverse)
			}
		}
	}
	for _, stream := range []bool{false, true} {
		for _, inverse := range []bool{false, true} {
			for _, w := range []int{1, 2, 4} {
				g.weave3AVX512(w, inverse, stream)
				g.weave3AVX2(w, inverse, stream)
			}
		}
	}
	for _, lvl := range []*level{avx512, avx2} {
		for _, stream := range []bool{false, true} {
			g.weavePack4(lvl, stream)
		}
		g.unweavePack4(lvl, false)
	}
	g.unweavePack4(avx512, true)
	for _, lvl := range []*level{avx512, avx2} {
		for _, inverse := range []bool{false, true} {
			for _, stream := range []bool{false, true} {
				g.weaveNibbles(lvl, inverse, stream)
			}
		}
	}

	g.fillRuns()
	g.copyRunsNTPrefetch()
	g.copyRunsAhead()
	g.copyRunsStream(avx512)
	g.copyRunsStream(avx2)
	g.joinRunsStream()
	g.joinStepsStream()
	g.copyParts(avx512)
	g.copyParts(avx2)
	g.copyPartsMasked(avx512)
	g.copyPartsMasked(avx2)
	g.copyMaskedBlocks(avx512)
	g.copyMaskedBlocks(avx2)
	g.copyBlocks(avx2)
	g.copyRepMOVSB()
	g.prefetchRuns()
	g.permuteBlocks()
	g.permuteBlocks2()
	g.permuteLinesStream()
	g.permuteWide(false)
	g.permuteWide(true)
	g.transposeNibbles8()
	g.packRows8x8()
	g.unpack4()
	g.pack4()
	g.nibblePairs()
	for _, h := range nibblePairHalves {
		g.nibblePairsIn(h)
	}
	for _, bits := range []int{1, 2, 4} {
		g.splitFields(avx512, bits)
		g.splitFields(avx2, bits)
	}
	for _, stream := range []bool{false, true} {
		for _, bits := range []int{1, 2, 4} {
			g.transposeFields(bits, stream)
		}
	}
	for _, stream := range []bool{false, true} {
		for _, bits := range []int{1, 2, 4} {
			g.transposeFieldsShort(bits, stream)
		}
	}

	for _, stream := range []bool{false, true} {
		for _, lvl := range []*level{avx512, avx2} {
			g.convertF32ToBF16(lvl, stream)
			g.convertBF16ToF32(lvl, stream)
			g.convertF32ToF16(lvl, stream)
			g.convertF16ToF32(lvl, stream)
		}
	}
	for _, stream := range []bool{false, true} {
		for _, lvl := range []*level{avx512, avx2} {
			g.tilesF32ToBF16(lvl, stream)
			g.untileBF16ToF32(lvl, stream)
		}
	}

	g.tables(permBytes16x4, permWords16x2)
	for _, w := range []int{1, 2, 4, 8, 16} {
		g.tables(ilLo[w], ilHi[w])
	}
	g.tables(iotaDwords, iotaBytes, iotaWords)
	for _, w := range recordWidths {
		g.tables(recordTables(w))
	}
	g.tables(recordMaskAVX2, recordSpreadPermAVX2, recordPackPermAVX2)
	for _, w := range recordWidthsAVX2 {
		g.tables(recordTablesAVX2(w))
	}
	g.tables(swapMasks[1], swapMasks[2], swapMasks[4])
	for _, h := range nibblePairHalves {
		g.tables(nibblePairMasks(h))
	}
	for _, w := range []int{1, 2, 4, 8, 16} {
		g.tables(deEven[w], deOdd[w])
	}
	for _, w := range []int{1, 2, 4, 8} {
		g.tables(deShuf[w])
	}
	for _, ew := range deLaneShapes {
		g.tables(deLanes(ew[0], ew[1]))
	}
	for _, inverse := range []bool{false, true} {
		for _, w := range []int{1, 2, 4} {
			for _, t := range weave3Tables[inverse][w] {
				g.tables(t[0], t[1])
			}
			for _, t := range weave3Lanes[inverse][w] {
				g.tables(t[:]...)
			}
		}
		for _, t := range weave3Tables[inverse][8] {
			g.tables(t[0], t[1])
		}
	}
}

// gen emits kernels into an avo build context; the instruction methods
// (g.VMOVDQU and so on) are the context's.
type gen struct {
	*build.Context
	kernels []*kernel // the registry: every function text started
	err     error     // the first function no family registers
}

// The general-purpose registers the kernels use, named as Go assembly
// names them.
var (
	ax, bx, cx, dx = reg.RAX, reg.RBX, reg.RCX, reg.RDX
	si, di         = reg.RSI, reg.RDI

	r8, r9, r10, r11, r12 = reg.R8, reg.R9, reg.R10, reg.R11, reg.R12
	r13, r14              = reg.R13, reg.R14
	// r15 only in copyRunsStream's exact ends and joinStepsStream, which
	// read no global (Go clobbers R15 to reach globals when it links
	// dynamically).
	r15 = reg.R15
)

// A level is an instruction-set level the kernels are written for.
type level struct {
	name  string   // the suffix of its kernels' names
	bytes int      // the length of a vector register
	spec  reg.Spec // the size of a vector register
}

var (
	avx512 = &level{name: "AVX512", bytes: 64, spec: reg.S512}
	avx2   = &level{name: "AVX2", bytes: 32, spec: reg.S256}
)

// v returns vector register i (Zi or Yi) of the level.
func (l *level) v(i int) reg.VecPhysical {
	return vec(i, l.spec)
}

// vs returns n vector registers of the level from register i on.
func (l *level) vs(i, n int) []reg.VecPhysical {
	r := make([]reg.VecPhysical, n)
	for j := range r {
		r[j] = l.v(i + j)
	}
	return r
}

// vec returns vector register i of size s (X, Y or Z).
func vec(i int, s reg.Spec) reg.VecPhysical {
	return reg.Vector.Lookup(reg.Index(i), s).(reg.VecPhysical)
}

// mov is a two-operand move: a vector load or store.
type mov func(src, dst operand.Op)

// vmovdqu32 is VMOVDQU32 as a mov.
func (g *gen) vmovdqu32() mov { return func(src, dst operand.Op) { g.VMOVDQU32(src, dst) } }

// vmovdqu64 is VMOVDQU64 as a mov.
func (g *gen) vmovdqu64() mov { return func(src, dst operand.Op) { g.VMOVDQU64(src, dst) } }

// vmov returns the level's whole-vector move: VMOVDQU64 or VMOVDQU.
func (g *gen) vmov(l *level) mov {
	if l == avx512 {
		return g.vmovdqu64()
	}
	return g.VMOVDQU
}

// text starts the function name with the Go signature sig: NOSPLIT, no
// frame (every kernel is a leaf that keeps to registers). It registers the
// kernel (registry.go), whose doc comment the prototype takes, with
// //go:noescape where it takes pointers.
func (g *gen) text(name, sig string) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	g.SignatureExpr(sig)
	k, err := g.register(name, sig)
	if err != nil {
		if g.err == nil {
			g.err = err
		}
		return
	}
	g.Doc(k.doc()...)
	if strings.Contains(sig, "*") || strings.Contains(sig, "uintptr") {
		g.Pragma("noescape")
	}
}

// params loads arguments into registers: names[i] into regs[i]
// (MOVQ name+off(FP), reg).
func (g *gen) params(names []string, regs ...reg.Register) {
	for i, name := range names {
		g.Load(g.Param(name), regs[i])
	}
}

// loopEnd closes the loop at label on the count in CX and returns.
func (g *gen) loopEnd(label string) {
	g.countDown(label)
	g.ret()
}

// countDown decrements the count in CX and jumps to label while it is not
// zero: DECQ CX; JNZ label.
func (g *gen) countDown(label string) {
	g.DECQ(cx)
	g.JNZ(operand.LabelRef(label))
}

// ret clears the upper halves of the vector registers, which the Go code
// after a kernel may run SSE code with, and returns: VZEROUPPER; RET.
func (g *gen) ret() {
	g.VZEROUPPER()
	g.RET()
}

// imm is a 32-bit immediate (for ADDQ, CMPQ, ANDQ: the assembler picks
// the shortest encoding).
func imm(x int) operand.I32 { return operand.I32(x) }

// at is the address disp(base).
func at(base reg.Register, disp int) operand.Mem {
	return operand.Mem{Base: base, Disp: disp}
}

// atIdx is the address disp(base)(index*scale).
func atIdx(base, index reg.Register, scale uint8, disp int) operand.Mem {
	return operand.Mem{Base: base, Index: index, Scale: scale, Disp: disp}
}

// row8 is the address of row i (0 to 7) of eight rows stride apart:
// rows 0 to 3 from base, rows 4 to 7 from R9, which the kernel holds at
// base + 4*stride (R8 = 3*stride, as for row).
func row8(base, stride reg.Register, i int) operand.Mem {
	if i >= 4 {
		base = r9
	}
	return row(base, stride, r8, i%4, 0)
}

// row is the address of row i (0 to 3) of four rows stride apart from
// base, with stride3 holding 3*stride: (base), (base)(stride*1),
// (base)(stride*2), (base)(stride3*1); disp added.
func row(base, stride, stride3 reg.Register, i, disp int) operand.Mem {
	switch i {
	case 0:
		return at(base, disp)
	case 3:
		return atIdx(base, stride3, 1, disp)
	}
	return atIdx(base, stride, uint8(i), disp)
}
