// Package relayout moves N-dimensional arrays between XLA memory layouts:
// row- and column-major orders, any minor_to_major permutation, tiles of
// one or more levels (TPU's T(8,128)(2,1)), tail padding, padded dims and
// packed sub-byte elements.
//
// The pipeline runs in one direction:
//
//   - XLA shape text ("bf16[8,128]{1,0:T(8,128)(2,1)}") parses into a
//     Shape (ParseShape), or a Shape is built with NewShape.
//   - Package tiling maps each Shape's layout to physical digits: every
//     logical dim split into mixed-radix digits (tile index, index within
//     the tile, ...), each with its stride in the buffer.
//   - Compile refines the two sides' digits into a common loop nest,
//     merges what is contiguous on both sides, and picks the body: a copy
//     of the whole buffer, run copies, 2-D block transposes,
//     interleaves, packing stages for sub-byte types, or a conversion
//     between element types (fused into the relayout's one pass between
//     row-major f32 and bf16 (2,1) tiles). The result is a Plan,
//     immutable and safe for concurrent Runs: what every kind of plan
//     shares, and one executor for its kind (a loop nest, stages, a
//     conversion, a fused conversion, a copy). Plan.String explains it.
//   - Plan.Run checks the buffers and hands them to the executor once:
//     a loop nest is walked and calls the kernels of the root package
//     tilecopy (AVX-512, AVX2, NEON or portable Go, chosen at run time),
//     sharing large arrays among goroutines (Options.Threads).
//
// The main calls:
//
//   - Compile(from, to, opts) and Plan.Run(dst, src): compile once, run
//     on any number of buffers. RunRange runs part of a plan, for files
//     mapped into memory a step at a time.
//   - ToColumnMajor, ToRowMajor, Transpose2D and Permute: the common
//     relayouts of typed Go slices in one call.
//   - ForDevice, Upload and Download: pad and tile an array as a device
//     lays it out (PresetTPU) and undo it.
//   - Reference(dst, src, from, to, pad): the slow element-by-element
//     relayout that every plan is tested against, its shapes in
//     Compile's order.
//
// Errors wrap exported sentinels (ErrSyntax, ErrInvalidLayout,
// ErrShapeMismatch, ...) for errors.Is; bad input is an error, never a
// panic or a write outside the destination.
package relayout
