package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// fillRuns emits fillRunsAVX2, the pattern fill:
//
//	func fillRunsAVX2(dst *byte, dstStride int, n int, rows int, pat *[32]byte)
//
// It stores 32 bytes of pattern at a time, the last store of a run ending
// at its end (overlapping the one before: the pattern's length divides
// both 32 and n, so every store is in phase). Runs shorter than 32 bytes
// take the widest store that fits, twice: at the start and ending at the
// end of the run (16, 8, 4 or 2 bytes), or once for a 1-byte run.
func (g *gen) fillRuns() {
	g.text("fillRunsAVX2", "func(dst *byte, dstStride int, n int, rows int, pat *[32]byte)")
	g.params([]string{"dst", "dstStride", "n", "rows", "pat"}, di, dx, r8, cx, si)
	y0 := avx2.v(0)
	g.VMOVDQU(at(si, 0), y0)
	g.MOVQ(at(si, 0), ax)
	g.CMPQ(r8, imm(32))
	g.JB(operand.LabelRef("small"))
	g.LEAQ(at(r8, -32), r9)

	g.Comment("Runs of 32 bytes or more: 32-byte stores at BX, then one ending at the end (R9 = n-32).")
	g.Label("row32")
	g.XORQ(bx, bx)
	g.Label("loop32")
	g.VMOVDQU(y0, atIdx(di, bx, 1, 0))
	g.addBelow(bx, 32, r9, "loop32")
	g.VMOVDQU(y0, atIdx(di, r9, 1, 0))
	g.ADDQ(dx, di)
	g.loopEnd("row32")

	// The ladder of short runs: a run of at least size bytes and fewer
	// than twice as many takes two stores of size bytes.
	g.Comment("Shorter runs: two stores of the widest size that fits, the second ending at the end.")
	check := "small"
	for _, size := range []int{16, 8, 4, 2} {
		under := fmt.Sprintf("under%d", size)
		if size == 2 {
			under = "row1" // n ≥ 1: nothing left to check
		}
		g.Label(check)
		g.CMPQ(r8, imm(size))
		g.JB(operand.LabelRef(under))
		rowLabel := fmt.Sprintf("row%d", size)
		g.Label(rowLabel)
		src := patternReg(size)
		g.patternStore(size, src, at(di, 0))
		g.patternStore(size, src, atIdx(di, r8, 1, -size))
		g.ADDQ(dx, di)
		g.loopEnd(rowLabel)
		check = under
	}
	g.Label("row1")
	g.patternStore(1, patternReg(1), at(di, 0))
	g.ADDQ(dx, di)
	g.loopEnd("row1")
}

// patternReg returns the register holding the first size bytes of the
// pattern: X0 for 16, AX (as wide as size) for 8, 4, 2 or 1.
func patternReg(size int) reg.Register {
	switch size {
	case 16:
		return vec(0, reg.S128)
	case 8:
		return reg.RAX
	case 4:
		return reg.EAX
	case 2:
		return reg.AX
	}
	return reg.AL
}

// patternStore stores the size bytes of src at dst.
func (g *gen) patternStore(size int, src reg.Register, dst operand.Mem) {
	switch size {
	case 16:
		g.VMOVDQU(src, dst)
	case 8:
		g.MOVQ(src, dst)
	case 4:
		g.MOVL(src, dst)
	case 2:
		g.MOVW(src, dst)
	default:
		g.MOVB(src, dst)
	}
}

// The streaming run copies of transposeStaged: func(dst *byte, dstStride
// int, src *byte, srcStride int, n int, rows int, ...) with DI, DX, SI,
// BX, R8 (n) and CX (rows) loaded by runsPrologue; AX walks a run.

// runsPrologue starts the function name, whose arguments are the common
// ones of the run copies followed by extra, and loads the common ones.
func (g *gen) runsPrologue(name, extra string) {
	g.text(name, "func(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, "+extra+")")
	g.params([]string{"dst", "dstStride", "src", "srcStride", "n", "rows"}, di, dx, si, bx, r8, cx)
}

// copyStep copies pieces (1 or 2) of 32 bytes at offset AX of the run,
// loading them all into Y0, Y1 before storing them with store.
func (g *gen) copyStep(store mov, pieces int) {
	ys := avx2.vs(0, pieces)
	for i, y := range ys {
		g.VMOVDQU(atIdx(si, ax, 1, 32*i), y)
	}
	for i, y := range ys {
		store(y, atIdx(di, ax, 1, 32*i))
	}
}

// addBelow adds step to r and jumps to label while r is below limit
// (unsigned): ADDQ $step, r; CMPQ r, limit; JB label.
func (g *gen) addBelow(r reg.Register, step int, limit reg.Register, label string) {
	g.ADDQ(imm(step), r)
	g.CMPQ(r, limit)
	g.JB(operand.LabelRef(label))
}

// nextPrefetchLine steps a prefetch walk over runs of n bytes stride
// apart by one line: off, the offset in the run at pf, goes 64 on, and
// at the run's end back to 0 with pf on to the next run. label is the
// label it leaves after itself.
func (g *gen) nextPrefetchLine(pf, off, stride reg.Register, n operand.Op, label string) {
	g.ADDQ(imm(64), off)
	g.CMPQ(off, n)
	g.JB(operand.LabelRef(label))
	g.Comment("The prefetch run is done: on to the next.")
	g.XORQ(off, off)
	g.ADDQ(stride, pf)
	g.Label(label)
}

// nextRun steps DI and SI to the next run and loops to label while runs
// are left.
func (g *gen) nextRun(label string) {
	g.ADDQ(dx, di)
	g.ADDQ(bx, si)
	g.countDown(label)
}

// copyRunsNTPrefetch emits copyRunsNTPrefetch, which copies runs with
// VMOVNTDQ (then SFENCE) and prefetches one line per line it copies,
// walking runs of pfN bytes at stride pfStride from pf: R9 the prefetch
// run, R12 the offset in it, R10 pfStride, R11 pfN.
func (g *gen) copyRunsNTPrefetch() {
	g.runsPrologue("copyRunsNTPrefetch", "pf *byte, pfStride int, pfN int")
	g.params([]string{"pf", "pfStride", "pfN"}, r9, r10, r11)
	g.XORQ(r12, r12)

	g.Label("row")
	g.XORQ(ax, ax)
	g.Label("line")
	g.PREFETCHT0(atIdx(r9, r12, 1, 0))
	g.copyStep(g.VMOVNTDQ, 2)
	g.nextPrefetchLine(r9, r12, r10, r11, "same")
	g.addBelow(ax, 64, r8, "line")
	g.nextRun("row")
	g.SFENCE()
	g.ret()
}

// copyRunsAhead emits copyRunsAhead, which copies runs with ordinary
// stores, 64 bytes per step, then a last 32 bytes where that many are
// left, then where n is no multiple of 32 the run's last 32 bytes (moved
// back over bytes copied already), and prefetches the line ahead bytes
// past each step's source: R10 = SI + ahead, R11 the bytes of whole
// 64-byte steps, R12 the bytes left after them.
func (g *gen) copyRunsAhead() {
	g.runsPrologue("copyRunsAhead", "ahead int")
	g.params([]string{"ahead"}, r9)
	g.MOVQ(r8, r11)
	g.Comment("R11: the bytes of whole 64-byte steps")
	g.ANDQ(imm(-64), r11)

	g.Label("arow")
	g.LEAQ(atIdx(si, r9, 1, 0), r10)
	g.XORQ(ax, ax)
	g.CMPQ(ax, r11)
	g.JAE(operand.LabelRef("atail"))
	g.Label("aline")
	g.PREFETCHT0(atIdx(r10, ax, 1, 0))
	g.copyStep(g.VMOVDQU, 2)
	g.addBelow(ax, 64, r11, "aline")
	g.Comment("A last 32 bytes, if that many are left.")
	g.Label("atail")
	g.MOVQ(r8, r12)
	g.SUBQ(ax, r12)
	g.CMPQ(r12, imm(32))
	g.JB(operand.LabelRef("aback"))
	g.PREFETCHT0(atIdx(r10, ax, 1, 0))
	g.copyStep(g.VMOVDQU, 1)
	g.ADDQ(imm(32), ax)
	g.Comment("The run's last 32 bytes, where n is no multiple of 32.")
	g.Label("aback")
	g.CMPQ(ax, r8)
	g.JAE(operand.LabelRef("anext"))
	g.LEAQ(at(r8, -32), ax)
	g.copyStep(g.VMOVDQU, 1)
	g.Label("anext")
	g.nextRun("arow")
	g.ret()
}

// copyRunsStream emits copyRunsStreamAVX512 or copyRunsStreamAVX2, which
// copy a grid of steps × rows runs and write each run's whole destination
// lines with VMOVNTDQ:
//
//	func(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, steps int, dstStep int, srcStep int, pf uintptr, pfStride int, pfN int, pfRows int, pfSkip int, ends int)
//
// DI and SI hold the step's destination and source, R12 the steps left;
// R10 and R11 walk the runs of a step; R8 holds n-64, the last offset at
// which a whole 64-byte piece starts. Non-temporal stores write a run's
// (n ≥ 64) lines from the destination's first line boundary in it. The
// caller fences them (one fence for many calls, where it makes many).
//
// The part lines at a run's ends depend on ends. With bit 0 set (the
// rows start here) an ordinary 64-byte store covers the head up to the
// first boundary; without it the line before that boundary is written
// whole with VMOVNTDQ from the 64 source bytes that end at it, whose
// start, before the run, holds the part line the last call left there.
// With bit 1 set (the rows end here) an ordinary store of the run's last
// 64 bytes covers a part line at its end; without it that part line is
// not written but left for the next call, the run's last 64 bytes copied
// to the 64 before the run. The ordinary stores may overlap lines the
// non-temporal ones write, with the same bytes. So ends 3 copies runs
// that stand alone; ends 0, 1 and 2 runs that go on, each in the call
// after, from where the last call's left off on the same rows, from the
// same source offsets (n a multiple of 64, so each row's lines fall
// alike).
//
// Each line written with VMOVNTDQ prefetches the next line of a walk
// through a second grid, independent of the steps: runs of pfN bytes,
// pfRows of them pfStride apart, then pfSkip on from the end of the last
// to the first run of the next group, and so on. R13 is the run, R14 the
// offset in it and R9 the runs left in the group. The step strides and the
// walk's shape stay in the arguments.
// exactEnds is the bit of copyRunsStream's ends that has the AVX-512
// kernel write a standalone run's part lines under masks, each byte once,
// instead of with 64-byte stores over the lines beside them.
const exactEnds = 4

func (g *gen) copyRunsStream(l *level) {
	g.runsPrologue("copyRunsStream"+l.name, "steps int, dstStep int, srcStep int, pf uintptr, pfStride int, pfN int, pfRows int, pfSkip int, ends int")
	g.params([]string{"steps", "pf", "pfRows"}, r12, r13, r9)
	arg := g.argAddr
	g.SUBQ(imm(64), r8)
	g.XORQ(r14, r14)
	vs := l.vs(0, 64/l.bytes)
	// line copies the 64 bytes at addr(R11, 0) to addr(R10, 0).
	line := func(addr func(base reg.Register, disp int) operand.Mem, store mov) {
		for i, v := range vs {
			g.vmov(l)(addr(r11, i*l.bytes), v)
		}
		for i, v := range vs {
			store(v, addr(r10, i*l.bytes))
		}
	}
	offset := func(off reg.Register) func(reg.Register, int) operand.Mem {
		return func(base reg.Register, disp int) operand.Mem { return atIdx(base, off, 1, disp) }
	}
	g.Label("step")
	g.Load(g.Param("rows"), cx)
	g.MOVQ(di, r10)
	g.MOVQ(si, r11)

	g.Label("row")
	g.Comment("AX: the bytes to the destination's first line boundary.")
	g.MOVQ(r10, ax)
	g.NEGQ(ax)
	g.ANDQ(imm(63), ax)
	g.JZ(operand.LabelRef("body"))
	g.TESTQ(imm(1), arg("ends"))
	g.JZ(operand.LabelRef("carried"))
	if l == avx512 {
		g.TESTQ(imm(exactEnds), arg("ends"))
		g.JZ(operand.LabelRef("overlap"))
		g.Comment("Exact ends: the head alone, its AX bytes under a mask.")
		g.MOVQ(operand.Imm(^uint64(0)), r15)
		g.BZHIQ(ax, r15, r15)
		g.KMOVQ(r15, reg.K1)
		g.VMOVDQU8(at(r11, 0), vs[0])
		g.VMOVDQU8(vs[0], reg.K1, at(r10, 0))
		g.JMP(operand.LabelRef("body"))
		g.Label("overlap")
	}
	line(at, g.vmov(l))
	g.JMP(operand.LabelRef("body"))
	g.Label("carried")
	g.Comment("The line before the first boundary: the last call's part line, then the head.")
	line(func(base reg.Register, disp int) operand.Mem { return atIdx(base, ax, 1, disp-64) }, g.VMOVNTDQ)
	g.Label("body")
	g.CMPQ(ax, r8)
	g.JA(operand.LabelRef("tail"))
	g.Label("line")
	g.PREFETCHT0(atIdx(r13, r14, 1, 0))
	line(offset(ax), g.VMOVNTDQ)
	g.ADDQ(imm(64), r14)
	g.CMPQ(r14, arg("pfN"))
	g.JB(operand.LabelRef("same"))
	g.Comment("The prefetch run is done: on to the next, or the next group's first.")
	g.XORQ(r14, r14)
	g.ADDQ(arg("pfStride"), r13)
	g.DECQ(r9)
	g.JNZ(operand.LabelRef("same"))
	g.ADDQ(arg("pfSkip"), r13)
	g.Load(g.Param("pfRows"), r9)
	g.Label("same")
	g.ADDQ(imm(64), ax)
	g.CMPQ(ax, r8)
	g.JBE(operand.LabelRef("line"))
	g.Label("tail")
	g.Comment("A part line left at the end: the run's last 64 bytes.")
	g.CMPQ(ax, arg("n"))
	g.JAE(operand.LabelRef("next"))
	g.TESTQ(imm(2), arg("ends"))
	g.JZ(operand.LabelRef("keep"))
	if l == avx512 {
		g.TESTQ(imm(exactEnds), arg("ends"))
		g.JZ(operand.LabelRef("overlapTail"))
		// The masked store starts at the tail's own line (R10+AX), not at
		// the run's last 64 bytes (R8), which would reach into the last
		// line the non-temporal stores wrote, and a line written both
		// ways is read from memory for the one and evicted for the other
		// (untiling f32 [5000,5000] from T(8,128) so ran far slower).
		g.Comment("Exact ends: the tail alone, its n-AX bytes under a mask, loaded")
		g.Comment("under it too (no byte past the run is read).")
		g.Load(g.Param("n"), r15)
		g.SUBQ(ax, r15)
		g.ADDQ(ax, r10)
		g.ADDQ(ax, r11)
		g.MOVQ(operand.Imm(^uint64(0)), ax)
		g.BZHIQ(r15, ax, ax)
		g.KMOVQ(ax, reg.K1)
		g.VMOVDQU8_Z(at(r11, 0), reg.K1, vs[0])
		g.VMOVDQU8(vs[0], reg.K1, at(r10, 0))
		g.Load(g.Param("n"), ax)
		g.SUBQ(r15, ax)
		g.SUBQ(ax, r10)
		g.SUBQ(ax, r11)
		g.JMP(operand.LabelRef("next"))
		g.Label("overlapTail")
	}
	line(offset(r8), g.vmov(l))
	g.JMP(operand.LabelRef("next"))
	g.Label("keep")
	g.Comment("Keep the part line for the next call: the run's last 64 bytes to the 64 before it.")
	for i, v := range vs {
		g.vmov(l)(atIdx(r11, r8, 1, i*l.bytes), v)
	}
	for i, v := range vs {
		g.vmov(l)(v, at(r11, i*l.bytes-64))
	}
	g.Label("next")
	g.ADDQ(dx, r10)
	g.ADDQ(bx, r11)
	g.countDown("row")
	g.ADDQ(arg("dstStep"), di)
	g.ADDQ(arg("srcStep"), si)
	g.DECQ(r12)
	g.JNZ(operand.LabelRef("step"))
	g.ret()
}

// joinRunsStream emits joinRunsStream, which copies a grid of steps ×
// rows runs of n bytes (16 or 32) whose destination is contiguous (run r
// of a step at dst + r*n), writing whole lines with VMOVNTDQ: each line
// joins 64/n runs, two 32-byte halves of YMM registers, the 16-byte runs
// paired with VINSERTI128. Runs too short for the copies that write a
// run's own lines (copyRunsStream) would otherwise be written with
// ordinary stores, each line read from memory first.
//
//	func(dst *byte, src *byte, srcStride int, n int, rows int, steps int, dstStep int, srcStep int, pfAhead int)
//
// Before each run it prefetches the source pfAhead bytes on (the caller
// passes its steps' next line of each row). DI and SI hold the step's
// destination and source, R12 the steps left; R10 walks the rows, R11
// the destination, CX the lines left, R13 pfAhead. The caller fences.
func (g *gen) joinRunsStream() {
	g.text("joinRunsStream", "func(dst *byte, src *byte, srcStride int, n int, rows int, steps int, dstStep int, srcStep int, pfAhead int)")
	g.params([]string{"dst", "src", "srcStride", "steps", "pfAhead"}, di, si, bx, r12, r13)
	g.Load(g.Param("n"), ax)
	g.CMPQ(ax, imm(16))
	g.JNE(operand.LabelRef("step32"))
	for _, n := range []int{16, 32} {
		label := fmt.Sprintf("step%d", n)
		g.Label(label)
		g.Load(g.Param("rows"), cx)
		g.SHRQ(operand.U8(log2(64/n)), cx) // lines
		g.MOVQ(si, r10)
		g.MOVQ(di, r11)
		line := fmt.Sprintf("line%d", n)
		g.Label(line)
		for h := range 2 {
			y := avx2.v(h)
			if n == 32 {
				g.PREFETCHT0(atIdx(r10, r13, 1, 0))
				g.VMOVDQU(at(r10, 0), y)
				g.ADDQ(bx, r10)
			} else {
				g.PREFETCHT0(atIdx(r10, r13, 1, 0))
				g.VMOVDQU(at(r10, 0), y.AsX())
				g.ADDQ(bx, r10)
				g.PREFETCHT0(atIdx(r10, r13, 1, 0))
				g.VINSERTI128(operand.U8(1), at(r10, 0), y, y)
				g.ADDQ(bx, r10)
			}
		}
		g.VMOVNTDQ(avx2.v(0), at(r11, 0))
		g.VMOVNTDQ(avx2.v(1), at(r11, 32))
		g.ADDQ(imm(64), r11)
		g.countDown(line)
		g.ADDQ(g.argAddr("dstStep"), di)
		g.ADDQ(g.argAddr("srcStep"), si)
		g.DECQ(r12)
		g.JNZ(operand.LabelRef(label))
		g.ret()
	}
}

// argAddr is the address of the argument name in the frame, for
// instructions that read it from memory each time.
func (g *gen) argAddr(name string) operand.Mem {
	b, err := g.Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// joinStepsStream emits joinStepsStreamAVX512, which copies steps × rows
// runs of n bytes (a multiple of 64) whose steps continue each other's
// destination rows: run (s, r) from src + s*srcStep + r*srcStride to
// dst + r*dstStride + s*n. Each row's lines inside its steps*n bytes go
// whole with non-temporal stores, a line that two runs share joined in a
// register from two loads under masks; the part lines at the row's ends
// go with ordinary stores of their own bytes, under masks. Runs written
// one at a time (copyRunsStream) wrote each shared line in two masked
// parts, each read from memory first.
//
//	func(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, steps int, srcStep int, ahead int)
//
// It goes a step at a time, every row's run of it (a tile's rows, whose
// source lies together), and prefetches each line's source ahead bytes
// on. DI and SI hold the step's row 0, R12 counts the steps, CX the rows;
// R10 and R11 the row's run, AX the bytes to its first line boundary
// (the same in every run of the row: n is a multiple of 64), R13 and
// R15 its first whole line and that line's source, R8 the prefetch
// address, R14 the offset in the run, R9 n-64; K1 holds the low 64-AX
// bytes, K2 the rest, K3 the low AX. The caller fences.
func (g *gen) joinStepsStream() {
	g.text("joinStepsStreamAVX512", "func(dst *byte, dstStride int, src *byte, srcStride int, n int, rows int, steps int, srcStep int, ahead int)")
	g.params([]string{"dst", "dstStride", "src", "srcStride", "n", "steps"}, di, dx, si, bx, r9, r12)
	g.SUBQ(imm(64), r9)
	z := avx512.v(0)
	arg := g.argAddr

	g.Label("step")
	g.Load(g.Param("rows"), cx)
	g.MOVQ(di, r10)
	g.MOVQ(si, r11)

	g.Label("row")
	g.MOVQ(r10, ax)
	g.NEGQ(ax)
	g.ANDQ(imm(63), ax)
	g.JZ(operand.LabelRef("whole"))
	g.Comment("Masks: K1 the low 64-AX bytes, K2 the high AX.")
	g.MOVQ(imm(64), r14)
	g.SUBQ(ax, r14)
	g.MOVQ(operand.Imm(^uint64(0)), r15)
	g.BZHIQ(r14, r15, r15)
	g.KMOVQ(r15, reg.K1)
	g.KNOTQ(reg.K1, reg.K2)
	g.CMPQ(r12, arg("steps"))
	g.JNE(operand.LabelRef("lines"))
	g.Comment("The row's first step: its head, the AX bytes before the first line boundary.")
	g.MOVQ(operand.Imm(^uint64(0)), r15)
	g.BZHIQ(ax, r15, r15)
	g.KMOVQ(r15, reg.K3)
	g.VMOVDQU8_Z(at(r11, 0), reg.K3, z)
	g.VMOVDQU8(z, reg.K3, at(r10, 0))

	g.Label("lines")
	g.LEAQ(atIdx(r10, ax, 1, 0), r13)
	g.LEAQ(atIdx(r11, ax, 1, 0), r15)
	g.MOVQ(r15, r8)
	g.ADDQ(arg("ahead"), r8)
	g.XORQ(r14, r14)
	g.CMPQ(r14, r9)
	g.JAE(operand.LabelRef("shared"))
	g.Label("line")
	g.PREFETCHT0(atIdx(r8, r14, 1, 0))
	g.VMOVDQU64(atIdx(r15, r14, 1, 0), z)
	g.VMOVNTDQ(z, atIdx(r13, r14, 1, 0))
	g.addBelow(r14, 64, r9, "line")
	g.Label("shared")
	g.Comment("The run's last line: its last 64-AX bytes, then the next step's first AX.")
	g.PREFETCHT0(atIdx(r8, r9, 1, 0))
	g.VMOVDQU8_Z(atIdx(r15, r9, 1, 0), reg.K1, z)
	g.CMPQ(r12, imm(1))
	g.JE(operand.LabelRef("tail"))
	g.MOVQ(arg("srcStep"), r14)
	g.ADDQ(r11, r14)
	g.LEAQ(atIdx(r14, ax, 1, -64), r14)
	g.VMOVDQU8(at(r14, 0), reg.K2, z)
	g.VMOVNTDQ(z, atIdx(r13, r9, 1, 0))
	g.JMP(operand.LabelRef("next"))
	g.Label("tail")
	g.Comment("The last step: the row's tail, its own 64-AX bytes.")
	g.VMOVDQU8(z, reg.K1, atIdx(r13, r9, 1, 0))
	g.JMP(operand.LabelRef("next"))

	g.Label("whole")
	g.Comment("A row on line boundaries: every line of the run whole.")
	g.MOVQ(r11, r8)
	g.ADDQ(arg("ahead"), r8)
	g.XORQ(r14, r14)
	g.Label("wline")
	g.PREFETCHT0(atIdx(r8, r14, 1, 0))
	g.VMOVDQU64(atIdx(r11, r14, 1, 0), z)
	g.VMOVNTDQ(z, atIdx(r10, r14, 1, 0))
	g.ADDQ(imm(64), r14)
	g.CMPQ(r14, r9)
	g.JBE(operand.LabelRef("wline"))

	g.Label("next")
	g.ADDQ(dx, r10)
	g.ADDQ(bx, r11)
	g.countDown("row")
	g.LEAQ(atIdx(di, r9, 1, 64), di)
	g.ADDQ(arg("srcStep"), si)
	g.DECQ(r12)
	g.JNZ(operand.LabelRef("step"))
	g.ret()
}
