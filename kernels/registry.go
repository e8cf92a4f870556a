package main

import (
	"bytes"
	"fmt"
	"go/format"
	"regexp"
	"slices"
	"strings"
)

// The registry: every function g.text starts is recorded as a kernel,
// described by the family its name belongs to (families, below). From
// the kernels the generator writes, besides the assembly, the Go file of
// package internal/kernel that declares them (registryFile): each
// function's prototype with its doc comment and //go:noescape, then the
// table asmKernels of every kernel's function, kind, level, element
// width, ways, field bits and flags, which the Go side may choose
// kernels from. A name no family matches, or more than one, stops the
// generator: a new kind of kernel needs its family here.

// A family is the kernels of one kind: one pattern of names, one doc.
type family struct {
	// name is the pattern of the kernels' names, with placeholders
	// {w} (the element width in bytes), {k} (the ways: rows or columns
	// woven, rows of a narrow block), {b} (the field width in bits), {S}
	// (Stream, or nothing) and {L} (the level: AVX512 or AVX2).
	name string
	// kind is the family's kind in the table (asm<Kind> in Go). The
	// kind and the flag asmStream determine the function's type.
	kind string
	// level is the level of kernels whose name has no {L}: "AVX2", or ""
	// for those that need no vector extension.
	level string
	// width, ways and bits are those of kernels whose name lacks the
	// placeholder.
	width, ways, bits int
	// flags are the flags of every kernel of the family.
	flags []string
	// vbmi reports that the family's AVX-512 kernels of 1-byte elements
	// (or of any width, with vbmiAll) need AVX-512 VBMI.
	vbmi, vbmiAll bool
	// streamDoc, if set, replaces the sentence on the non-temporal
	// stores of the family's Stream kernels.
	streamDoc string
	// doc is the doc comment: "{name}" is replaced by the kernel's name,
	// {w}, {k}, {b} by its numbers, {level} by its level's name, {vec}
	// by its vector's bytes, {stream} by a sentence on its non-temporal
	// stores and {record} by one on records (each empty where it does
	// not apply).
	doc string
	// re matches name; set by init.
	re *regexp.Regexp
}

// The docs' common preconditions and sentences.
const (
	fieldsStream = " It writes with VMOVNTDQ and ends with SFENCE: dst (and dstStep) a multiple of 32."
	weaveStream  = " It writes with VMOVNTDQ, not fenced: each vector store aligned (dst, and a de-interleave's dstStride, multiples of the vector's bytes; of 16 for the AVX2 interleaves, which store 16-byte pieces)."
	inside       = "every byte read and written lies inside the caller's slices"
	feature      = "the CPU has the features the table's level and flags say"
)

// families are the kinds of kernel the generator emits, in the order of
// their kinds in the table.
var families = []*family{
	{name: "transpose{w}{L}", kind: "transpose", vbmi: true, doc: `{name} transposes n register blocks of {w}-byte elements lying one
after another along a strip of the source: block k reads bj source rows
from src + k*bi*{w} (bi elements each) and writes bi destination rows
from dst + k*bi*dstStride (bj elements each), where bi × bj is the
kernel's register block (kernelShape).{record} Preconditions (the Go side
checks them, the assembly does not): n ≥ 1; ` + inside + `; ` + feature + `.`},
	{name: "transpose{w}Rows{L}", kind: "transposeRows", vbmi: true, doc: `{name} is the transpose of {w}-byte elements for a cache-resident
destination: its blocks read whole source lines and write part lines
of 16 destination rows. Contract as for transpose{w}{level}.`},
	{name: "transpose4To{k}{L}", kind: "transposeTo", width: 4, doc: `{name} is a narrow transpose of 4-byte elements whose blocks write {k}
destination rows (bi = {k}), for small blocks such as the tpu preset's
tiles seen from a column-major array. Contract as for transpose4{level}.`},
	{name: "transpose4From{k}{L}", kind: "transposeFrom", width: 4, doc: `{name} is a narrow transpose of 4-byte elements whose blocks read {k}
source rows (bj = {k}). Contract as for transpose4{level}.`},
	{name: "transpose{w}Stream{L}", kind: "transposeStream", flags: []string{"stream"}, vbmi: true, doc: `{name} is the streaming twin of the transpose of {w}-byte elements: its
block reads a whole line of each of its source rows and writes a whole
line of each of its bi destination rows (at AVX2, four squares of the
plain kernel); its n blocks lie one after
another down the source, and so along the destination rows, which it
writes with VMOVNTDQ, not fenced (storeFence follows the last call).
Before each block it prefetches bi lines, walking runs of pfN bytes
pfStride apart from pf. Preconditions: those of the plain kernel; dst
and dstStride multiples of 64; pfN ≥ 64 (prefetches never fault, so the
walk may run past the caller's slices).`},
	{name: "transpose2LinesStream{L}", kind: "transposeStream", width: 2, flags: []string{"stream"}, doc: `{name} is a streaming transpose of 2-byte elements whose block reads a
whole line of each of 32 source rows and writes a whole line of each of
32 destination rows (bi = bj = 32), where transpose2Stream{level}'s reads
half a line of each; otherwise as transpose2Stream{level}: n blocks down
the source, VMOVNTDQ not fenced, bi lines prefetched a block from pf.
Preconditions: n ≥ 1; ` + inside + `; dst and dstStride multiples of 64;
pfN ≥ 64; ` + feature + `.`},
	{name: "transpose2LinesSkew{L}", kind: "transposeSkew", width: 2, flags: []string{"stream"}, doc: `{name} is the skew twin of transpose2LinesStream{level}, for
destination rows that start anywhere, as transpose2Skew{level} is of
transpose2Stream{level}: the same arguments (rows holds an entry for
each of the block's 32 rows, prev 64 bytes of each), the same
preconditions.`},
	{name: "transpose{w}Skew{L}", kind: "transposeSkew", flags: []string{"stream"}, vbmi: true, doc: `{name} is the skew twin of transpose{w}Stream{level}, for destination
rows that start anywhere (a start or stride no multiple of 64): block
k's rows of 64 bytes start on no line boundary, so each row's line is
the one that ends inside them and starts inside block k-1, which the
call before left (or the caller put) at prev. For row r of the strip,
rows holds two int64s: off, where that line starts from dst + k*64, and
add, the permute's index offset: a line of elements plus the row's
offset to its first line boundary, counted in the permute's elements
(dwords for elements of 4 bytes or more, else bytes or words). The
AVX-512 twins keep 64 bytes a row in prev; the AVX2 ones, without a
two-register permute, join each line in memory and keep 128, the block
before's 64 and room for this one's. Preconditions: those of the
streaming kernel, except that dst and dstStride are free, multiples of
the permute's element; the lines written inside the caller's
destination.`},
	{name: "storeFence", kind: "fence", doc: `{name} is SFENCE: it orders the non-temporal stores of the streaming
kernels before the stores that follow.`},
	{name: "interleave{k}x{w}{S}{L}", kind: "interleave", vbmi: true, streamDoc: weaveStream, doc: `{name} is Transpose of {k} columns with a contiguous destination: it
reads n chunks of {k} source rows ({vec} bytes of each a chunk) and
writes them to dst element by element ({w} bytes each).{stream}
Preconditions: n ≥ 1; ` + inside + `; ` + feature + `.`},
	{name: "deinterleave{k}x{w}{S}{L}", kind: "deinterleave", vbmi: true, streamDoc: weaveStream, doc: `{name} is Transpose of {k} rows with a contiguous source: it splits n
chunks of the source ({k}×{vec} bytes a chunk) into {k} destination rows
dstStride apart, {w} bytes an element.{stream} Preconditions: n ≥ 1;
` + inside + `; ` + feature + `.`},
	{name: "interleave{k}x{w}Grid{L}", kind: "interleaveGrid", vbmi: true, doc: `{name} runs interleave{k}x{w}{level} on each block of a grid of outer ×
inner blocks (block (a, b) at dst + a*dstOuter + b*dstInner and src +
a*srcOuter + b*srcInner, each of n chunks; where back is not 0, each
block's last chunk starts back bytes into its source rows and {k} times
as far into its destination, overlapping the chunk before). It reads
the first keep of the {k} source rows, 1 ≤ keep ≤ {k}, and weaves the
{vec} bytes at pad in place of the others. With stream it writes with
VMOVNTDQ, which its caller fences, otherwise with the plain kernel's
stores. It prefetches each chunk's source rows ahead bytes on, unless
ahead is 0 (a prefetch never faults). Preconditions: those of the plain
kernel for every block (for the rows it reads); pad points to {vec}
bytes; inner, outer ≥ 1; with stream, every destination vector store
aligned.`},
	{name: "deinterleave{k}x{w}Grid{L}", kind: "deinterleaveGrid", vbmi: true, doc: `{name} runs deinterleave{k}x{w}{level} on each block of a grid of
outer × inner blocks (block (a, b) at dst + a*dstOuter + b*dstInner and
src + a*srcOuter + b*srcInner, each of n chunks; where back is not 0,
each block's last chunk starts back bytes into its destination rows and
{k} times as far into its source, overlapping the chunk before). It
stores the first keep of the {k} rows, 1 ≤ keep ≤ {k}. With stream it
writes with VMOVNTDQ, which its caller fences, otherwise with the plain
kernel's stores. Preconditions: those of the plain kernel for every
block (for the rows it stores); inner, outer ≥ 1; with stream, every
destination vector store aligned.`},
	{name: "interleave8Pack4{S}{L}", kind: "packRows8", vbmi: true, vbmiAll: true, doc: `{name} packs n chunks of 8 source rows ({vec} bytes of each row a chunk)
into words of nibbles (PackRows8).{stream} Preconditions: n ≥ 1; ` + inside + `; ` + feature + `.`},
	{name: "unpack4Deinterleave8{S}{L}", kind: "unpackRows8", vbmi: true, vbmiAll: true, doc: `{name} unpacks n chunks of words of nibbles into 8 destination rows
dstStride apart (UnpackRows8), keeping the bits under mask of each
field and sign-extending from the bit sign.{stream} Preconditions: n ≥ 1;
` + inside + `; ` + feature + `.`},
	{name: "interleave8Nibbles{S}{L}", kind: "interleaveNibbles8", vbmi: true, vbmiAll: true, doc: `{name} lays out n chunks of 8 packed rows of 4-bit fields ({vec} bytes
of each row a chunk) as words of nibbles (InterleaveNibbles8).{stream}
Preconditions: n ≥ 1; ` + inside + `; ` + feature + `.`},
	{name: "deinterleave8Nibbles{S}{L}", kind: "deinterleaveNibbles8", vbmi: true, vbmiAll: true, doc: `{name} splits n chunks of words of nibbles into 8 packed rows of 4-bit
fields dstStride apart (DeinterleaveNibbles8).{stream} Preconditions:
n ≥ 1; ` + inside + `; ` + feature + `.`},
	{name: "fillRuns{L}", kind: "fill", doc: `{name} writes rows runs of n bytes at stride dstStride, each a
repetition of the pattern whose copies fill pat. Preconditions: n ≥ 1
and rows ≥ 1; the pattern's length divides 32 and n; every byte inside
the caller's slice; ` + feature + `.`},
	{name: "copyRunsNTPrefetch", kind: "copyRunsNTPrefetch", level: "AVX2", flags: []string{"stream"}, doc: `{name} copies rows runs of n bytes, run k from src+k*srcStride to
dst+k*dstStride, with non-temporal stores followed by SFENCE, and
prefetches one line per line it copies, walking runs of pfN bytes at
stride pfStride from pf. Preconditions: AVX2; rows ≥ 1; n ≥ 64 and a
multiple of 64; dst and dstStride multiples of 32; every byte copied
inside the caller's slices; pfN ≥ 64 (prefetches never fault).`},
	{name: "copyRunsAhead", kind: "copyRunsAhead", level: "AVX2", doc: `{name} copies rows runs of n bytes, run k from src+k*srcStride to
dst+k*dstStride, with ordinary stores, and for each 64 bytes it copies
prefetches the line ahead bytes past the source. Where n is no multiple
of 32, a run's last 32 bytes are copied moved back to end at its end,
over bytes copied already. Preconditions: AVX2; rows ≥ 1; n ≥ 32; the
runs do not overlap between dst and src; every byte copied inside the
caller's slices.`},
	{name: "copyRunsStream{L}", kind: "copyRunsStream", flags: []string{"stream"}, doc: `{name} copies steps × rows runs of n bytes, run (s, r) from
src+s*srcStep+r*srcStride to dst+s*dstStep+r*dstStride, writing each
run's whole destination lines with non-temporal stores, not fenced. For
each line it streams it prefetches the next line of a walk from pf:
runs of pfN bytes, pfRows of them pfStride apart, then pfSkip bytes on
to the next group's first. The part lines at a run's ends go as ends
says (bothEnds for runs that stand alone; runEnds). With bit 0 set,
ordinary stores write the one at its start; without it, that line is
written whole from the 64 source bytes that end at its first line
boundary, which begin before the run: the last call left its part line
there. With bit 1 set, ordinary stores write the part line at its end;
without it, that line is left for the next call: the run's last 64
bytes are copied to the 64 before the run. Without either bit, n is a
multiple of 64, the next call continues the rows from the same source
offsets, and the 64 bytes before each source run are the caller's. With
bit 2 (exactEnds) as well as bits 0 and 1, the AVX-512 kernel stores
only the part lines' own bytes, under masks, so that no line takes both
ordinary and non-temporal stores. Preconditions: rows,
steps, pfRows ≥ 1; n ≥ 64; pfN ≥ 1; every byte copied inside the
caller's slices; ` + feature + `. pf is an address, not a pointer: the
walk may run past the caller's slices.`},
	{name: "joinRunsStream", kind: "joinRunsStream", level: "AVX2", flags: []string{"stream"}, doc: `{name} copies steps × rows runs of n bytes (16 or 32) to a contiguous
destination a step, run r of step s from src + s*srcStep + r*srcStride
to dst + s*dstStep + r*n, joining 64/n runs into each destination line,
which it writes with non-temporal stores, not fenced. Before each run it
prefetches the source pfAhead bytes on. Preconditions: AVX2; rows*n a
multiple of 64; steps ≥ 1; dst and dstStep multiples of 64; every byte
copied inside the caller's slices.`},
	{name: "joinStepsStreamAVX512", kind: "joinStepsStream", level: "AVX512", flags: []string{"stream"}, doc: `{name} copies steps × rows runs of n bytes, run (s, r) from src +
s*srcStep + r*srcStride to dst + r*dstStride + s*n: each row's steps
continue each other. It writes the lines inside each row's steps*n
bytes whole with non-temporal stores, not fenced (a line two runs share
joined from two loads under masks), and the part lines at the row's
ends with ordinary stores of their own bytes, under masks. It prefetches
each line's source ahead bytes on. Preconditions: n a positive multiple
of 64; rows, steps ≥ 1; ` + inside + ` (the masked loads read no other
byte); ` + feature + `.`},
	{name: "copyParts{L}", kind: "copyParts", flags: []string{"stream"}, doc: `{name} copies blocks blocks of 256 bytes from each of parts parts of
src, partLen bytes apart, to the same places from dst: the parts' first
blocks, then their second blocks, and so on, with non-temporal stores,
prefetching ahead bytes ahead in each part when ahead > 0. The caller
fences the stores. Preconditions (copyParts checks them): dst is 64-byte
aligned; partLen is a multiple of 256; parts, blocks ≥ 1; parts ×
partLen bytes lie inside both buffers, which do not overlap; ` + feature + `.`},
	{name: "copyPartsMasked{L}", kind: "copyPartsMasked", flags: []string{"stream"}, doc: `{name} is the copyParts kernel of its level that keeps of each
source byte the bits set in mask and takes the others from pat: it
stores (src & m) | p, m and p the bytes of mask and pat at an offset
that starts at phase and moves on 256 bytes a block, less maskLen where
it reaches maskLen; every part reads them at the same offset.
Preconditions (Mask.Copy checks them): those of copyParts, with no
prefetch; maskLen a multiple of 256 and partLen of maskLen (where
parts > 1); 0 ≤ phase < maskLen; mask and pat hold 2 × maskLen bytes
each, their period twice; p has no bit of m.`},
	{name: "copyMaskedBlocks{L}", kind: "copyPartsMasked", doc: `{name} is the copyPartsMasked kernel of its level with ordinary
stores, for a destination the caches hold: it stores (src & m) | p, m and p the bytes of mask and
pat at an offset that starts at phase and moves on 256 bytes a block,
less maskLen where it reaches maskLen, blocks blocks of 256 bytes from
each of parts parts, partLen bytes apart. Preconditions (Mask.Copy
checks them): parts, blocks ≥ 1; parts × partLen bytes lie inside both
buffers, which do not overlap; maskLen a multiple of 256 and partLen of
maskLen (where parts > 1); 0 ≤ phase < maskLen; mask and pat hold 2 ×
maskLen bytes each, their period twice; p has no bit of m; ` + feature + `.`},
	{name: "permuteBlocksAVX512", kind: "permuteBlocks", level: "AVX512", flags: []string{"vbmi"}, doc: `{name} permutes bytes: steps times, it loads the 64 bytes at src under
srcMask (the rest zero), permutes them by the 64 indexes at table
(VPERMB) and stores those under dstMask to dst, then moves src on by
srcStep bytes and dst by dstStep. Preconditions: AVX-512 VBMI; steps ≥
1; every byte under a step's masks lies inside its buffer, and the
buffers do not overlap.`},
	{name: "permuteBlocks2AVX512", kind: "permuteBlocks2", level: "AVX512", flags: []string{"vbmi"}, doc: `{name} permutes blocks of 65 to 128 bytes: steps times, it loads the
first 64 bytes at src and those under mask of the next 64 (the rest
zero), permutes the two registers by the 128 indexes at table (VPERMI2B:
bit 6 of an index picks the register) and stores the first 64 bytes and
those under mask of the next 64 to dst, then moves src on by srcStep
bytes and dst by dstStep. Preconditions: AVX-512 VBMI; steps ≥ 1; every
byte under a step's block lies inside its buffer, and the buffers do not
overlap.`},
	{name: "permuteWide{S}AVX512", kind: "permuteWide", level: "AVX512", flags: []string{"vbmi"}, doc: `{name} permutes blocks of lines lines whose every destination line
draws on at most two source lines of its block: steps times, it writes
the block's lines lines one after another, line k the VPERMI2B of the two
source lines at the offsets table+128k+64 and +72 (int64s, from the
block's start) by the 64 indexes at table+128k (bit 6 picks the second
line), its bytes under the mask at table+128k+80 (an uint64) taken from
the 64 bytes at pad instead, then moves src on by srcStep bytes and dst
by dstStep.{stream} Preconditions: AVX-512 VBMI; lines and steps ≥ 1;
every line read or written lies inside its buffer, and the buffers do
not overlap.`},
	{name: "permuteLinesStreamAVX512", kind: "permuteLines", level: "AVX512", flags: []string{"vbmi", "stream"}, doc: `{name} permutes blocks of one or two whole lines and streams them: steps
times, it loads lines lines (1 or 2) at src, permutes them by the 128
indexes at table (VPERMI2B over two registers, the second zero for one
line), stores them to dst with VMOVNTDQ, not fenced, then moves src on
by srcStep bytes and dst by dstStep. Preconditions: AVX-512 VBMI; steps
≥ 1; dst and dstStep multiples of 64; every line read or written lies
inside its buffer, and the buffers do not overlap.`},
	{name: "transposeNibbles8AVX512", kind: "transposeNibbles8", level: "AVX512", flags: []string{"vbmi"}, doc: `{name} transposes count 8×8 blocks of 4-bit fields, each row 4 bytes
with its first field in the high nibble of its first byte: row r of
block b, from src + b*srcStep + r*srcStride, becomes column r of the
block at dst + b*dstStep, whose row c lies c*dstStride on. An (8,1)
tile of 8 fields and the 8 rows it interleaves are such a transpose of
each other. table holds the two VPERMI2B index vectors and 32 bytes of
0x0f (nibbleTable). Preconditions: AVX-512 VBMI; count ≥ 1; srcStride
or dstStride 4 (with neither it does nothing); ` + inside + `.`},
	{name: "packRows8x8AVX512", kind: "packRows8x8", level: "AVX512", flags: []string{"vbmi"}, doc: `{name} is PackRows8 of 8 fields on count blocks: block b reads 8
bytes of each of 8 rows, row r from src + b*srcStep + r*srcStride, and
writes their 8 words of (8,1) fields to dst + b*dstStep. table holds
the two VPERMB index vectors and 64 bytes of 0x0f (packRowsTable).
Preconditions: AVX-512 VBMI; count ≥ 1; ` + inside + `.`},
	{name: "prefetchRuns", kind: "prefetchRuns", doc: `{name} prefetches into the caches (PREFETCHT0) every line that rows
runs of n bytes touch, run k at p+k*stride. It reads and writes no
memory: a prefetch of an address outside the caller's buffers never
faults. Preconditions: n ≥ 1; rows ≥ 1.`},
	{name: "copyBlocks{L}", kind: "copyBlocks", doc: `{name} copies blocks blocks of 256 bytes from src to dst with
ordinary stores, through the caches. Preconditions: blocks ≥ 1; blocks
× 256 bytes lie inside both buffers, which do not overlap; ` + feature + `.`},
	{name: "copyRepMOVSB", kind: "copyRepMOVSB", flags: []string{"erms"}, doc: `{name} copies n bytes with REP MOVSB. Preconditions: n ≥ 0 bytes lie
inside both buffers, which do not overlap.`},
	{name: "unpack{b}{L}", kind: "unpack", doc: `{name} unpacks n bytes of {b}-bit fields (two to a byte, the first in
the high nibble) from src into 2n bytes at dst, one field a byte: the
bits under mask, sign-extended from the bit sign (0 for zero-extended).
Preconditions: n ≥ 32 and a multiple of 32; ` + inside + `; ` + feature + `.`},
	{name: "pack{b}{L}", kind: "pack", doc: `{name} packs the low nibbles of 2n bytes from src into n bytes at dst,
two to a byte, the first in the high nibble. Preconditions: n ≥ 32 and
a multiple of 32; ` + inside + `; ` + feature + `.`},
	{name: "nibblePairs{L}", kind: "nibblePairs", doc: `{name} is TransposeNibblePairs over the first n bytes of each half of
blocks blocks of 2h bytes from buf: byte i of a block's first half and
byte i of its second turn their 2×2 block of 4-bit fields around (the
first keeps its high field and takes the second's, the second takes the
first's low field and keeps its own; the first field in the high
nibble). Preconditions: n ≥ 32, a multiple of 32, and ≤ h; blocks ≥ 1;
` + inside + `; ` + feature + `.`},
	{name: "nibblePairsIn{k}{L}", kind: "nibblePairsIn", doc: `{name} is TransposeNibblePairs over n bytes at buf in blocks of 2×{k}
bytes: the first {k} bytes of each block paired with the last {k}.
Preconditions: n ≥ 32 and a multiple of 32; ` + inside + `; ` + feature + `.`},
	{name: "splitFields{b}NTPrefetch{L}", kind: "splitFields", flags: []string{"stream"}, vbmi: true, vbmiAll: true, doc: `{name} is the last step of TransposePacked's one pass for {b}-bit
fields: for each of rows source runs of n bytes (a multiple of 64e, e =
8/{b}), srcStride apart, byte q of destination row e*r+f packs field f
of bytes e*q to e*q+e-1 of run r, the first in the high bits: n/e bytes
a row, rows dstStride apart, with non-temporal stores, then SFENCE. It
prefetches one line per line written, walking runs of pfN bytes at
stride pfStride from pf. Preconditions: rows ≥ 1; dst and dstStride
multiples of 64; ` + inside + `; pfN ≥ 64; ` + feature + `.`},
	{name: "transposeFields{b}{S}{L}", kind: "transposeFields", streamDoc: fieldsStream, doc: `{name} transposes the blocks of {b}-bit fields of
groups of e = 8/{b} rows (TransposeFields): for each group, n chunks of
32 bytes of each row, row m at src + m*srcStride, to e*32 bytes of dst a
chunk; the next group's rows start e*srcStride further on, its output
dstStep bytes further on. masks points at the masks of fieldSwaps({b}),
in order.{stream} Preconditions: n, groups ≥ 1; ` + inside + `; ` + feature + `.`},
	{name: "transposeFieldsShort{b}{S}{L}", kind: "transposeFieldsShort", streamDoc: fieldsStream, doc: `{name} is the field transpose of short rows of
{b}-bit fields (ShortFieldRows): n 64-byte blocks of whole groups of rows
from src to dst, each 32 bytes shuffled with the 32 bytes at perm
(fieldPerm) and then swapped with the masks at masks, as
transposeFields{b}{level} does.{stream} Preconditions: n ≥ 1; ` + inside + `;
` + feature + `.`},
	{name: "convertF32ToBF16{S}{L}", kind: "convertF32ToBF16", doc: `{name} converts n f32 values at src to bf16 at dst, rounding to nearest
even.{stream} Preconditions: n a multiple of 16; ` + inside + `; ` + feature + `.`},
	{name: "convertBF16ToF32{S}{L}", kind: "convertBF16ToF32", doc: `{name} converts n bf16 values at src to f32 at dst.{stream}
Preconditions: n a multiple of 16; ` + inside + `; ` + feature + `.`},
	{name: "convertF32ToF16{S}{L}", kind: "convertF32ToF16", flags: []string{"f16c"}, doc: `{name} converts n f32 values at src to f16 at dst, rounding to nearest
even.{stream} Preconditions: n a multiple of 16; ` + inside + `; ` + feature + `.`},
	{name: "convertF16ToF32{S}{L}", kind: "convertF16ToF32", flags: []string{"f16c"}, doc: `{name} converts n f16 values at src to f32 at dst.{stream}
Preconditions: n a multiple of 16; ` + inside + `; ` + feature + `.`},
	{name: "tilesF32ToBF16{S}{L}", kind: "tilesF32ToBF16", doc: `{name} converts rows of f32 at src, stride bytes apart, into bf16
(2,1) tiles at dst, rounding to nearest even (TilesF32ToBF16): tiles ×
pairs × lines lines of 64 bytes, one after the other. It prefetches two
lines into L2 for each line it writes, from pf and pf + pairs*stride on
(prefetches never fault: pf needs no bounds).{stream} Preconditions:
tiles, lines and pairs ≥ 1; ` + inside + `; ` + feature + `.`},
	{name: "untileBF16ToF32{S}{L}", kind: "untileBF16ToF32", doc: `{name} converts bf16 (2,1) tiles at src, tiles × pairs × lines lines
of 64 bytes one after the other, into rows of f32 at dst, stride bytes
apart (UntileBF16ToF32).{stream} Preconditions: tiles, lines and pairs
≥ 1; for the streaming kernel stride a multiple of 64; ` + inside + `;
` + feature + `.`},
}

// flagNames are the flags of the table, in the order of their bits.
var flagNames = []string{"stream", "vbmi", "f16c", "erms"}

// flagGo are the flags' names in Go.
var flagGo = map[string]string{"stream": "asmStream", "vbmi": "asmVBMI", "f16c": "asmF16C", "erms": "asmERMS"}

// flagDocs say what each flag means, for the Go constants.
var flagDocs = map[string]string{
	"stream": "writes with non-temporal stores",
	"vbmi":   "needs AVX-512 VBMI as well as its level",
	"f16c":   "needs F16C as well as its level",
	"erms":   "needs the fast REP MOVSB (ERMS)",
}

// placeholders are the regular expressions of the placeholders of a
// family's name.
var placeholders = strings.NewReplacer(
	"{w}", `(?P<w>[0-9]+)`,
	"{k}", `(?P<k>[0-9]+)`,
	"{b}", `(?P<b>[0-9]+)`,
	"{S}", `(?P<S>Stream)?`,
	"{L}", `(?P<L>AVX512|AVX2)`,
)

func init() {
	for _, f := range families {
		f.re = regexp.MustCompile("^" + placeholders.Replace(f.name) + "$")
	}
}

// A kernel is one function of the registry.
type kernel struct {
	name, sig string
	fam       *family
	level     string // "AVX512", "AVX2" or ""
	width     int    // the element width in bytes, 0 where none applies
	ways      int    // the rows or columns woven, or rows of a narrow block
	bits      int    // the field width in bits of the sub-byte kernels
	flags     []string
}

// register records the kernel name of signature sig, from its family,
// and returns it.
func (g *gen) register(name, sig string) (*kernel, error) {
	var k *kernel
	for _, f := range families {
		m := f.re.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		if k != nil {
			return nil, fmt.Errorf("kernel %s is of two families, %q and %q", name, k.fam.name, f.name)
		}
		k = &kernel{name: name, sig: sig, fam: f, level: f.level, width: f.width, ways: f.ways, bits: f.bits}
		k.flags = slices.Clone(f.flags)
		for i, group := range f.re.SubexpNames() {
			switch v := m[i]; group {
			case "w":
				fmt.Sscan(v, &k.width)
			case "k":
				fmt.Sscan(v, &k.ways)
			case "b":
				fmt.Sscan(v, &k.bits)
			case "S":
				if v != "" {
					k.flags = append(k.flags, "stream")
				}
			case "L":
				k.level = v
			}
		}
		if k.level == "AVX512" && f.vbmi && (f.vbmiAll || k.width == 1 || k.width&(k.width-1) != 0) {
			k.flags = append(k.flags, "vbmi")
		}
	}
	if k == nil {
		return nil, fmt.Errorf("kernel %s is of no family: add its family to kernels/registry.go", name)
	}
	for _, other := range g.kernels {
		if other.name == name {
			return nil, fmt.Errorf("kernel %s emitted twice", name)
		}
	}
	g.kernels = append(g.kernels, k)
	return k, nil
}

// doc returns k's doc comment, one line a slice element.
func (k *kernel) doc() []string {
	stream := ""
	if slices.Contains(k.flags, "stream") && strings.Contains(k.name, "Stream") && !slices.Contains(k.fam.flags, "stream") {
		stream = " It writes with non-temporal stores, not fenced: dst (and any destination stride) a multiple of 64."
		if k.fam.streamDoc != "" {
			stream = k.fam.streamDoc
		}
		if strings.HasPrefix(k.fam.kind, "packRows8") || strings.HasPrefix(k.fam.kind, "interleaveNibbles8") {
			stream += " It prefetches each chunk's rows ahead bytes on, unless ahead is 0."
		}
	}
	record := ""
	if k.width&(k.width-1) != 0 {
		record = fmt.Sprintf(" Its %d-byte elements are records, read and written under masks.", k.width)
	}
	vec := "64"
	if k.level == "AVX2" {
		vec = "32"
	}
	text := strings.NewReplacer(
		"{name}", k.name,
		"{w}", fmt.Sprint(k.width),
		"{k}", fmt.Sprint(k.ways),
		"{b}", fmt.Sprint(k.bits),
		"{level}", k.level,
		"{vec}", vec,
		"{stream}", stream,
		"{record}", record,
	).Replace(k.fam.doc)
	return wrap(strings.Join(strings.Fields(text), " "), 72)
}

// wrap breaks text into lines of at most width bytes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// exported returns name with its first letter in upper case.
func exported(name string) string {
	return strings.ToUpper(name[:1]) + name[1:]
}

// table returns the Go source of the registry's table, appended to the
// prototypes avo writes: the types of the table, the kinds and flags,
// one ID a kernel and asmKernels.
func (g *gen) table() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("\n// asmKind is the kind of an assembly kernel: what it does, which with\n")
	p("// the flag asmStream determines the type of its function.\n")
	p("type asmKind uint8\n\n// The kinds of kernel, one a family of kernels/registry.go.\nconst (\n")
	var kinds []string
	for _, f := range families {
		if !slices.Contains(kinds, f.kind) {
			kinds = append(kinds, f.kind)
		}
	}
	for i, kind := range kinds {
		if i == 0 {
			p("\tasm%s asmKind = iota\n", exported(kind))
		} else {
			p("\tasm%s\n", exported(kind))
		}
	}
	p(")\n\n// asmFlags are what an assembly kernel needs or does beyond its level.\ntype asmFlags uint8\n\n")
	p("// The flags of a kernel.\nconst (\n")
	for i, f := range flagNames {
		if i == 0 {
			p("\t%s asmFlags = 1 << iota // %s\n", flagGo[f], flagDocs[f])
		} else {
			p("\t%s // %s\n", flagGo[f], flagDocs[f])
		}
	}
	p(")\n\n")
	p(`// An asmKernel is the registry's entry of one assembly kernel.
type asmKernel struct {
	name  string   // the function's name
	fn    any      // the function, of the type its kind and flags give
	kind  asmKind  // what it does
	level string   // levelAVX512 or levelAVX2; "" for no vector extension
	width int      // the element width in bytes; 0 where none applies
	ways  int      // the rows or columns it weaves, or a narrow block's rows
	bits  int      // the field width in bits of a sub-byte kernel
	flags asmFlags // what it needs or does beyond its level
}

// An asmID names one assembly kernel: its index in asmKernels.
type asmID uint16

// The assembly kernels, in the order of the assembly file.
const (
`)
	for i, k := range g.kernels {
		if i == 0 {
			p("\tid%s asmID = iota\n", exported(k.name))
		} else {
			p("\tid%s\n", exported(k.name))
		}
	}
	p("\n\tnumAsmKernels // the number of assembly kernels\n)\n\n")
	p("// asmKernels is the registry: every assembly kernel by its ID.\n")
	p("var asmKernels = [numAsmKernels]asmKernel{\n")
	for _, k := range g.kernels {
		level := `""`
		switch k.level {
		case "AVX512":
			level = "levelAVX512"
		case "AVX2":
			level = "levelAVX2"
		}
		var fs []string
		for _, f := range flagNames {
			if slices.Contains(k.flags, f) {
				fs = append(fs, flagGo[f])
			}
		}
		e := fmt.Sprintf("name: %q, fn: %s, kind: asm%s, level: %s", k.name, k.name, exported(k.fam.kind), level)
		for _, n := range []struct {
			field string
			v     int
		}{{"width", k.width}, {"ways", k.ways}, {"bits", k.bits}} {
			if n.v != 0 {
				e += fmt.Sprintf(", %s: %d", n.field, n.v)
			}
		}
		if len(fs) > 0 {
			e += ", flags: " + strings.Join(fs, " | ")
		}
		p("\tid%s: {%s},\n", exported(k.name), e)
	}
	p("}\n")
	return b.Bytes()
}

// goFile returns the Go file of the registry: stubs, avo's prototypes of
// the kernels (with their docs and //go:noescape), then the table.
func (g *gen) goFile(stubs []byte) ([]byte, error) {
	return format.Source(append(stubs, g.table()...))
}
