package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/klauspost/cpuid/v2"
)

// Tuning is every choice of the kernels and the planner that depends on
// the machine's caches and memory rather than on its instruction set:
// the sizes from which they stream, the blocks they cut their work into,
// and when a plan splits its work among threads. DefaultTuning derives
// it from what cpuid reports; the command `relayout tune` measures the
// crossovers it can measure on this machine and writes them as JSON,
// which the environment variable TILECOPY_TUNING, naming such a file,
// loads at start-up in place of the defaults (fields the file leaves out
// keep theirs). SetTuning replaces it from a program.
//
// Each field's comment says how its default is derived; the
// measurements behind the derivations are in docs/perf/.
type Tuning struct {
	// CopyStreamBytes is the size past which Copy streams over parts
	// with non-temporal stores; up to it Copy copies through the caches.
	// Default: a quarter of the last-level cache (half RunStreamBytes),
	// so that a copy streams once its source and destination together
	// pass half of the cache: a copy runs among other traffic, and one
	// of the whole cache keeps little of it.
	CopyStreamBytes int `json:"copy_stream_bytes"`
	// CopyParts is how many parts of the buffer Copy walks at once.
	// Default: 4, enough walks to keep the misses in flight that reach
	// the memory's bandwidth, few enough for the hardware prefetchers to
	// track.
	CopyParts int `json:"copy_parts"`
	// CopyAhead is how far ahead, in bytes, each of Copy's parts
	// prefetches its source; 0 leaves it to the hardware prefetchers.
	// Default: four of the blocks a part copies at a turn (1 KiB). The
	// hardware prefetchers follow a few sequential walks, but left to
	// them alone the parts fell well behind copy() on some placements of
	// the buffers' pages and not on others; prefetched, they kept up on
	// every placement measured, on huge pages and on 4 KiB ones
	// (docs/perf). 0 on an Intel CPU: its non-temporal stores combine
	// in the L1's fill buffers, the same buffers a software prefetch
	// holds until its line arrives, so prefetching parts take buffers
	// from their own stores (on the Intel VMs measured, each prefetch
	// distance ran well behind none; docs/perf).
	CopyAhead int `json:"copy_ahead"`
	// CopyRepBytes is the size up to which Copy's copies through the
	// caches use REP MOVSB, where the CPU runs it fast (ERMS); larger
	// ones run a loop of vector moves. 0: REP MOVSB at every size.
	// Default: the L2's size on AMD CPUs, whose REP MOVSB falls behind a
	// loop of vector moves once the copy leaves the L2 (the rule glibc's
	// memcpy follows there); 0 elsewhere.
	CopyRepBytes int `json:"copy_rep_bytes"`

	// RunStreamBytes is the size of source and destination together
	// from which a plan's run copies stream (non-temporal stores, with
	// CopyRunsStreaming): a destination that large would only flush the
	// caches. Default: half the last-level cache (the largest data cache
	// cpuid reports, or 32 MiB where it reports none of 4 MiB or more),
	// where Copy streams a copy of the same bytes: run copies between
	// half the cache and the whole of it that wrote through the caches
	// ran far slower than streamed ones (relayout bench on a VM, which
	// shares its L3 with other guests: docs/perf). On an Intel CPU,
	// whose cpuid reports the L3 of the whole socket, of which one
	// process's cores hold a part, half of at most 96 MiB of it: a run
	// copy then streams where Copy streams a copy of the same bytes, as
	// elsewhere (on one Intel VM run copies on ordinary stores between
	// that and the whole 96 MiB ran far slower than streamed ones, on
	// another one of them ran faster: docs/perf).
	RunStreamBytes int `json:"run_stream_bytes"`
	// TransposeStreamBytes is the destination size from which Transpose
	// writes with non-temporal stores, and from which a plan transposes
	// with TransposeStreaming, TransposeGrid or TransposePackedStreaming.
	// Default: half the last-level cache, as for a copy
	// (CopyStreamBytes): a transpose runs among other traffic, and a
	// virtual machine shares its L3 with other guests' cores however
	// large cpuid says it is (relayout tune, which measures the size, and
	// the random pairs of relayout bench found streamed transposes
	// faster from sizes well below the whole cache: docs/perf). On an
	// Intel CPU the L2, where cpuid reports one and it is smaller than
	// RunStreamBytes, since its L3 is far (a mesh shared by the socket)
	// and an ordinary store that misses L2 reads its line from there
	// before it writes it.
	TransposeStreamBytes int `json:"transpose_stream_bytes"`
	// LineStreamBytes is the destination size from which Transpose
	// streams a destination whose rows all start on 64-byte lines,
	// whatever TransposeStreamBytes says. Default: 2 MiB, twice the size
	// from which Go's copy() streams, so that past L2 a transpose leaves
	// its destination out of the caches as the copy it is compared with
	// does, and rows at power-of-two strides, which crowd the L2 sets,
	// do not evict each other's lines before they are complete.
	LineStreamBytes int `json:"line_stream_bytes"`
	// StagedOffLinesBytes is the destination (or source) size from which
	// the streaming transposes of 1-byte elements whose destination rows
	// start off lines write whole lines (the skew twins of the streaming
	// kernels, or the staging tile at levels without them), rather than
	// the plain kernels' ordinary stores; 0 means never. Default: on an
	// Intel CPU, where an ordinary store reads its line from the far L3
	// or memory first, a quarter of the share of the socket's L3 that one
	// process's cores hold (the 96 MiB RunStreamBytes derives from), so
	// that source and destination stay well inside it (at a third, u8
	// transposes just under it ran at half the speed of the skew twins:
	// docs/perf); never elsewhere.
	StagedOffLinesBytes int `json:"staged_off_lines_bytes"`
	// StagedOffLinesWordsBytes is StagedOffLinesBytes for 2-byte
	// elements. Default: on an Intel CPU, four times the L2 (or
	// StagedOffLinesBytes where the L2 is not reported): from about
	// there the skew twin of 2-byte elements ran faster than the plain
	// kernel with the destination still in L3, where the 1-byte one did
	// not (docs/perf); never elsewhere.
	StagedOffLinesWordsBytes int `json:"staged_off_lines_words_bytes"`

	// Band is the L1 block of the transpose of a cache-resident array:
	// the bytes of each source row whose columns (destination rows) it
	// finishes, strip by strip of register blocks, before it moves on.
	// Default: a 32nd of the L1 data cache, a power of two from 512
	// bytes to 2 KiB (1 KiB where cpuid cannot tell).
	Band int `json:"band"`
	// StageRow × StageCol is the L2 block of the transposes of a
	// destination larger than the last-level cache, streamed or staged:
	// StageRow bytes of each source row by StageCol bytes of each
	// destination row, halved each way for staged 1-byte elements.
	// Memory sees runs of those lengths. StageRow's default: the L2
	// over 1024 (over 512 on an Intel CPU, whose farther memory wants
	// longer runs of each source row in flight), a power of two from 256
	// bytes to 4 KiB (1 KiB where cpuid cannot tell), so that the tile,
	// its transposed copy and the next tile's prefetched source share
	// L2.
	StageRow int `json:"stage_row"`
	// StageCol's default: 512 bytes whatever the cache, the shortest run
	// that non-temporal stores write at full speed.
	StageCol int `json:"stage_col"`
	// TileRows caps how many source rows a page or more apart a
	// streamed transpose's tile reads at once (never below a
	// destination line of elements), or 0 for no cap beyond StageCol;
	// the tiles it caps are left to the hardware prefetchers, not
	// prefetched. Default: 32 on an Intel CPU, whose L2 streamer
	// follows up to 32 streams, one a 4 KiB page, and whose
	// non-temporal stores combine in the L1 fill buffers that a software
	// prefetch to memory also holds (see CopyAhead): a tile of more rows
	// than the streamer follows was read as demand misses, and
	// prefetching a tile of fewer took buffers from the stores (f32
	// 8192² transposed ran fastest capped and not prefetched on the
	// Intel VM; docs/perf); 0 elsewhere.
	TileRows int `json:"tile_rows"`
	// GridGroup is how many bytes of destination a grid of small blocks
	// (a 4-D reversal, for example) stages before it streams them out,
	// behind one store fence; a blocked plan's two block buffers take
	// that much together. Default: an eighth of the L2, a power of
	// two from 32 KiB to 256 KiB (128 KiB where cpuid cannot tell).
	GridGroup int `json:"grid_group"`
	// CopyRowsFirst makes the amd64 gather kernels (1- and 2-byte
	// elements) read a streamed transpose's crowded source rows by
	// copying a tile of CopiedRow × CopiedCol bytes first, rather than
	// through slabs. Default: on an Intel CPU, whose far L3 favours the
	// copy's long sequential reads; not elsewhere.
	CopyRowsFirst bool `json:"copy_rows_first"`
	// CopiedRow is the bytes of each source row in a CopyRowsFirst tile.
	// Default: 512, eight lines: a tile of CopiedCol rows fits L1.
	CopiedRow int `json:"copied_row"`
	// CopiedCol is the bytes of each destination row in a CopyRowsFirst
	// tile, the runs it streams out. Default: 128, two lines.
	CopiedCol int `json:"copied_col"`

	// ParallelMinBytes is the destination size below which a plan's Run
	// stays on the calling goroutine whatever its threads: starting
	// goroutines and sharing caches costs more than a second thread gains
	// on a smaller array. Default: 4 MiB, four times a typical L2, past
	// which a thread's share no longer fits its core's caches.
	ParallelMinBytes int `json:"parallel_min_bytes"`

	// PackedOnePassBytes is the packed destination size from which a
	// plan of sub-byte fields transposes them in one pass
	// (TransposePackedStreaming, non-temporal stores) rather than in two
	// through a temporary. Default: the L2, a power of two from 256 KiB
	// to 4 MiB (1 MiB where cpuid cannot tell): past it the two passes'
	// temporary leaves L2.
	PackedOnePassBytes int `json:"packed_one_pass_bytes"`
	// FieldBandBytes is about how large the temporary of a chunk of a
	// plan of sub-byte fields may grow: a batch whose temporary would be
	// larger runs in bands of its destination rows, each through a
	// temporary of about that size, so that a mapped run goes in steps
	// of bounded memory. Default: a quarter of the last-level cache, a
	// power of two from 1 MiB to 64 MiB: bands much smaller than that
	// cost more calls than the cache they save, larger ones leave it.
	FieldBandBytes int `json:"field_band_bytes"`
	// UnpackRunBytes is the size of a staged plan's whole-array
	// temporary (the unpacked source) from which a Run of a field plan
	// with an unpacked destination runs in bands of FieldBandBytes
	// rather than through the stages. Default: four times the last-level
	// cache, the size from which the stages' temporary costs a pass
	// through memory of its own.
	UnpackRunBytes int `json:"unpack_run_bytes"`
}

// machine is what the derivation of the default tuning reads of a CPU.
type machine struct {
	l1d, l2, l3 int          // the data caches' sizes in bytes, ≤ 0 where unknown
	vendor      cpuid.Vendor // Intel: a far L3, shared by the socket
}

// thisMachine returns what cpuid reports of this CPU.
func thisMachine() machine {
	c := cpuid.CPU.Cache
	return machine{l1d: c.L1D, l2: c.L2, l3: c.L3, vendor: cpuid.CPU.VendorID}
}

// lastLevel is the size in bytes of m's largest data cache, or 32 MiB
// when it has none of 4 MiB or more (virtual machines often hide L3).
func (m machine) lastLevel() int {
	if c := max(m.l1d, m.l2, m.l3); c >= 4<<20 {
		return c
	}
	return 32 << 20
}

// intelStreams is how many streams an Intel core's L2 streamer follows,
// one a 4 KiB page (Intel's optimization reference manual).
const intelStreams = 32

// tuningFor derives the tuning of machine m, as the fields' comments
// describe. It is the only place where the CPU's vendor enters.
func tuningFor(m machine) Tuning {
	llc := m.lastLevel()
	intel := m.vendor == cpuid.Intel
	t := Tuning{
		RunStreamBytes:       llc / 2,
		TransposeStreamBytes: llc / 2,
		LineStreamBytes:      2 << 20,
		Band:                 1024,
		StageRow:             1024,
		StageCol:             512,
		GridGroup:            128 << 10,
		CopiedRow:            512,
		CopiedCol:            128,
		CopyParts:            4,
		CopyAhead:            4 * copyBlock,
		ParallelMinBytes:     4 << 20,
	}
	perRow := 1024 // bytes of L2 for each byte of a tile's source rows
	if intel {
		// The share of the socket's L3 that one process's cores hold
		// stands for the last level: half of it, as elsewhere.
		t.RunStreamBytes = min(llc, intelL3Share) / 2
		if m.l2 > 0 {
			t.TransposeStreamBytes = min(m.l2, t.RunStreamBytes)
		}
		t.StagedOffLinesBytes = intelL3Share / 4
		t.StagedOffLinesWordsBytes = t.StagedOffLinesBytes
		if m.l2 > 0 {
			t.StagedOffLinesWordsBytes = 4 * m.l2
		}
		t.CopyRowsFirst = true
		t.CopyAhead = 0
		t.TileRows = intelStreams
		perRow = 512
	}
	if m.l1d > 0 {
		t.Band = min(max(floorPow2(m.l1d/32), 512), 2048)
	}
	if m.l2 > 0 {
		t.StageRow = min(max(floorPow2(m.l2/perRow), 256), 4096)
		t.GridGroup = min(max(floorPow2(m.l2/8), 32<<10), 256<<10)
	}
	t.CopyStreamBytes = t.RunStreamBytes / 2
	if m.vendor == cpuid.AMD {
		t.CopyRepBytes = max(m.l2, 0)
	}
	t.PackedOnePassBytes = 1 << 20
	if m.l2 > 0 {
		t.PackedOnePassBytes = min(max(floorPow2(m.l2), 256<<10), 4<<20)
	}
	t.FieldBandBytes = min(max(floorPow2(llc/4), 1<<20), 64<<20)
	t.UnpackRunBytes = 4 * llc
	return t
}

// intelL3Share is about what one process's share of a server socket's
// L3 holds on an Intel CPU, whose cpuid reports the whole socket's
// (docs/perf): the last level the streaming thresholds derive from.
const intelL3Share = 96 << 20

// floorPow2 returns the largest power of two not above n (n ≥ 1), or 1.
func floorPow2(n int) int {
	p := 1
	for p <= n/2 {
		p *= 2
	}
	return p
}

// DefaultTuning returns the tuning derived from what cpuid reports of
// this CPU's caches and vendor (see each field of Tuning), used when
// TILECOPY_TUNING names no file. It does no measurement.
func DefaultTuning() Tuning { return tuningFor(thisMachine()) }

// TuningFor returns the tuning that the defaults derive for a CPU of
// vendor whose data caches hold l1d, l2 and l3 bytes (0 where unknown):
// for tests that check a plan's choices, which follow the tuning, the
// same on every machine that runs them.
func TuningFor(l1d, l2, l3 int, vendor cpuid.Vendor) Tuning {
	return tuningFor(machine{l1d: l1d, l2: l2, l3: l3, vendor: vendor})
}

// CurrentTuning returns the tuning in use, and the error that kept the
// file named by TILECOPY_TUNING from loading, if there was one (the
// defaults are then in use).
func CurrentTuning() (Tuning, error) { return tuning, tuningErr }

// SetTuning makes t the tuning that the kernels and the plans compiled
// after it use, once t.Check accepts it. It is meant for start-up, before
// any kernel runs: a kernel running meanwhile on another goroutine may
// see the old tuning or the new one, field by field.
func SetTuning(t Tuning) error {
	if err := t.Check(); err != nil {
		return err
	}
	tuning, tuningErr = t, nil
	return nil
}

// Check reports the fields of t that no kernel can use.
func (t Tuning) Check() error {
	var errs []error
	positive := func(name string, v, lo, hi int) {
		if v < lo || v > hi {
			errs = append(errs, fmt.Errorf("tuning: %s %d is not between %d and %d", name, v, lo, hi))
		}
	}
	const large = math.MaxInt
	positive("copy_stream_bytes", t.CopyStreamBytes, 0, large)
	positive("copy_parts", t.CopyParts, 1, 64)
	positive("copy_ahead", t.CopyAhead, 0, 1<<20)
	positive("copy_rep_bytes", t.CopyRepBytes, 0, large)
	positive("run_stream_bytes", t.RunStreamBytes, 0, large)
	positive("transpose_stream_bytes", t.TransposeStreamBytes, 0, large)
	positive("line_stream_bytes", t.LineStreamBytes, 0, large)
	positive("staged_off_lines_bytes", t.StagedOffLinesBytes, 0, large)
	positive("staged_off_lines_words_bytes", t.StagedOffLinesWordsBytes, 0, large)
	positive("band", t.Band, 16, 1<<20)
	positive("stage_row", t.StageRow, 64, 1<<20)
	positive("stage_col", t.StageCol, 64, 1<<20)
	positive("tile_rows", t.TileRows, 0, 1<<20)
	positive("grid_group", t.GridGroup, 4<<10, 64<<20)
	positive("copied_row", t.CopiedRow, 64, 1<<20)
	positive("copied_col", t.CopiedCol, 16, 1<<20)
	positive("parallel_min_bytes", t.ParallelMinBytes, 0, large)
	positive("packed_one_pass_bytes", t.PackedOnePassBytes, 0, large)
	positive("field_band_bytes", t.FieldBandBytes, 64<<10, large)
	positive("unpack_run_bytes", t.UnpackRunBytes, 0, large)
	return errors.Join(errs...)
}

// LoadTuning reads a tuning written by `relayout tune` (JSON) from path,
// over the defaults: a field the file leaves out keeps its default. It
// does not put the tuning in use (SetTuning does).
func LoadTuning(path string) (Tuning, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Tuning{}, fmt.Errorf("tuning: %w", err)
	}
	t := DefaultTuning()
	if err := json.Unmarshal(b, &t); err != nil {
		return Tuning{}, fmt.Errorf("tuning: %s: %w", path, err)
	}
	if err := t.Check(); err != nil {
		return Tuning{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// tuning is the tuning in use, set once at start-up (tuningFromEnv) or
// by SetTuning; tuningErr is why TILECOPY_TUNING did not load, or nil.
var tuning, tuningErr = tuningFromEnv(os.Getenv("TILECOPY_TUNING"))

// tuningFromEnv returns the tuning TILECOPY_TUNING's value path asks
// for: the defaults when it is empty or when the file does not load, with
// the error.
func tuningFromEnv(path string) (Tuning, error) {
	if path == "" {
		return DefaultTuning(), nil
	}
	t, err := LoadTuning(path)
	if err != nil {
		return DefaultTuning(), err
	}
	return t, nil
}
