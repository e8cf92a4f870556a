package relayout

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tilecopy/tilecopy/internal/kernel"
)

// fusedTiles is the executor of a conversion between row-major f32 and
// bf16 in tiles of rows by cols (cols a multiple of 16) whose (2,1)
// sub-tiles interleave row pairs (TPU's T(8,128)(2,1)), either way: the
// fused kernels (kernel.TilesF32ToBF16, kernel.UntileBF16ToF32) convert
// in registers as they move the elements, so that each side is touched
// once, in one pass, with no temporary. A band is one row of tiles: the
// kernel takes its whole tiles in one call, and a tile that the array's
// edge cuts (the last of a band, or every tile of a band with fewer
// rows) goes through a tile of f32 in the caches, the padding written
// after. Run shares the bands among its goroutines; RunRange's chunks
// are the bands.
type fusedTiles struct {
	*header
	up bool // f32 rows to bf16 tiles; else bf16 tiles to f32 rows
	// The array as a batch of matrices of rows by cols (the leading
	// dims, the last two), in tiles of tr by tc.
	batch, rows, cols, tr, tc int64
	bands                     int64 // bands of one matrix: rows/tr rounded up
	across                    int64 // tiles across a band: cols/tc rounded up
	whole                     int64 // of those, the tiles the edge does not cut
	stream                    bool  // write with non-temporal stores: the destination is past the caches
	zeroPad                   bool  // the padding pattern is zero, which staged zeros give
	tileTemp                  sync.Pool
}

// fuseTiles returns the fused executor of p, a plan between element
// types, where its shapes are such a pair, the level has the kernels
// and nothing pads the logical dims; else nil.
func fuseTiles(p *Plan, opts *Options) *fusedTiles {
	from, to := p.from, p.to
	f := &fusedTiles{header: &p.header, up: from.dtype == F32}
	rowSide, tileSide := from, to
	if !f.up {
		rowSide, tileSide = to, from
	}
	if !kernel.FusedTiles() || rowSide.dtype != F32 || tileSide.dtype != BF16 || opts.Pad.Widths != nil ||
		len(from.dims) < 2 || slices.Contains(from.dims, 0) {
		return nil
	}
	rl, tl := rowSide.layout, tileSide.layout
	rank := len(from.dims)
	if rl == nil || tl == nil || !slices.Equal(rl.MinorToMajor, RowMajor(rank)) || !slices.Equal(tl.MinorToMajor, RowMajor(rank)) ||
		len(rl.Tiles) != 0 || rl.TailPaddingAlignment > 1 || rl.ElementSizeInBits%32 != 0 ||
		len(tl.Tiles) != 2 || tl.TailPaddingAlignment > 1 || tl.ElementSizeInBits%16 != 0 ||
		len(tl.Tiles[0]) != 2 || !slices.Equal(tl.Tiles[1], Tile{2, 1}) {
		return nil
	}
	f.tr, f.tc = tl.Tiles[0][0], tl.Tiles[0][1]
	if f.tr < 2 || f.tr%2 != 0 || f.tc < 16 || f.tc%16 != 0 {
		return nil
	}
	f.rows, f.cols = from.dims[rank-2], from.dims[rank-1]
	f.batch = product(from.dims[:rank-2])
	f.bands, f.across = ceilDiv(f.rows, f.tr), ceilDiv(f.cols, f.tc)
	f.whole = f.cols / f.tc
	// The buffers are as large as this plan's offsets say, or the
	// layouts hold something it does not know of.
	rowBytes, tileBytes := f.batch*f.rows*f.cols*4, f.batch*f.bands*f.across*f.tr*f.tc*2
	if !f.up {
		rowBytes, tileBytes = tileBytes, rowBytes
	}
	if p.srcBytes != rowBytes || p.dstBytes != tileBytes {
		return nil
	}
	f.stream = p.pastCaches()
	f.zeroPad = !slices.ContainsFunc(p.padPat, func(b byte) bool { return b != 0 })
	return f
}

// bandTileBytes is the size of a band's tiles.
func (f *fusedTiles) bandTileBytes() int64 { return f.across * f.tr * f.tc * 2 }

// bandRows returns band k's first row among all the rows of the batch
// and how many it has.
func (f *fusedTiles) bandRows(k int64) (first, n int64) {
	b, r := k/f.bands, k%f.bands*f.tr
	return b*f.rows + r, min(f.tr, f.rows-r)
}

// run runs the plan; the buffers have been checked.
func (f *fusedTiles) run(dst, src []byte) error {
	n := f.batch * f.bands
	if g := min(f.goroutines(), n); g > 1 {
		shareOut(n, g, func(lo, hi int64) { f.runChunks(dst, src, lo, hi) })
	} else {
		f.runChunks(dst, src, 0, n) // no closure to allocate
	}
	return nil
}

// runChunks runs bands [lo, hi).
func (f *fusedTiles) runChunks(dst, src []byte, lo, hi int64) {
	rows, tiles := src, dst
	if !f.up {
		rows, tiles = dst, src
	}
	stride := f.cols * 4
	lines, pairs := int(f.tc/16), int(f.tr/2)
	s := kernel.Stream{Unfenced: true}
	for k := lo; k < hi; k++ {
		first, n := f.bandRows(k)
		r := rows[first*stride:]
		t := tiles[k*f.bandTileBytes():]
		if f.up {
			s.Prefetch = r[min(f.tr*stride, int64(len(r))-1):] // the next band's rows
		}
		done := int64(0)
		if n == f.tr && f.whole > 0 {
			done = f.whole
			switch {
			case f.up && f.stream:
				s.TilesF32ToBF16(t, r, int(stride), int(done), lines, pairs)
			case f.up:
				kernel.TilesF32ToBF16(t, r, int(stride), int(done), lines, pairs)
			case f.stream:
				s.UntileBF16ToF32(r, t, int(stride), int(done), lines, pairs)
			default:
				kernel.UntileBF16ToF32(r, t, int(stride), int(done), lines, pairs)
			}
		}
		for c := done; c < f.across; c++ {
			f.edgeTile(t[c*f.tr*f.tc*2:(c+1)*f.tr*f.tc*2], r[c*f.tc*4:], n, min(f.tc, f.cols-c*f.tc))
		}
	}
	if f.stream {
		kernel.StoreFence()
	}
}

// edgeTile moves one tile that the array's edge cuts, n rows of w
// columns of it valid: between tile and the rows from row, through a
// tile of f32 in the caches.
func (f *fusedTiles) edgeTile(tile, row []byte, n, w int64) {
	stride, tStride := f.cols*4, f.tc*4
	lines, pairs := int(f.tc/16), int(f.tr/2)
	tmp := getTemp(&f.tileTemp, f.tr*tStride)
	defer f.tileTemp.Put(tmp)
	stage := *tmp
	if !f.up {
		kernel.UntileBF16ToF32(stage, tile, int(tStride), 1, lines, pairs)
		for i := range n {
			copy(row[i*stride:i*stride+w*4], stage[i*tStride:])
		}
		return
	}
	clear(stage)
	for i := range n {
		copy(stage[i*tStride:], row[i*stride:i*stride+w*4])
	}
	kernel.TilesF32ToBF16(tile, stage, int(tStride), 1, lines, pairs)
	if f.zeroPad {
		return // the staged zeros gave the padding
	}
	// Element (i, j) of the tile sits at pair i/2, column j, half i%2.
	for i := range f.tr {
		for j := range f.tc {
			if i >= n || j >= w {
				at := (i/2*f.tc+j)*4 + i%2*2
				copy(tile[at:at+2], f.padPat)
			}
		}
	}
}

// chunks is the number of chunks RunRange takes: the bands.
func (f *fusedTiles) chunks() int64 { return f.batch * f.bands }

// chunkRange returns the destination bytes bands [lo, hi) write into.
func (f *fusedTiles) chunkRange(lo, hi int64) (from, to int64) {
	if f.up {
		return lo * f.bandTileBytes(), hi * f.bandTileBytes()
	}
	first, _ := f.bandRows(lo)
	last, n := f.bandRows(hi - 1)
	return first * f.cols * 4, (last + n) * f.cols * 4
}

// explain describes the plan for Plan.String.
func (f *fusedTiles) explain(b *strings.Builder) {
	kern, way := "kernel.UntileBF16ToF32", "bf16 tiles of %d×%d into f32 rows, the (2,1) sub-tiles' row pairs split"
	if f.up {
		kern, way = "kernel.TilesF32ToBF16", "f32 rows into bf16 tiles of %d×%d, the (2,1) sub-tiles' row pairs interleaved"
	}
	fmt.Fprintf(b, "  fused: convert and relayout in one pass (%s): "+way+" in registers; no temporary but an edge tile\n",
		kern, f.tr, f.tc)
	fmt.Fprintf(b, "  bands: %d rows of tiles of %d tiles each (%d whole in one kernel call, the rest cut by the edge, through a tile of f32 in the caches); RunRange's chunks; a Run shares them among up to %d goroutines\n",
		f.batch*f.bands, f.across, f.whole, f.threads)
	if f.stream {
		b.WriteString("  the destination is past the caches: written with non-temporal stores where the kernels have them\n")
	}
}
