//go:build amd64 && gc && !purego && !noasm

package kernel

// permuteBlocksFast runs PermuteBlocks' whole steps of 64 bytes (as many
// blocks as fit) in permuteBlocksAVX512 where the level has VBMI, and
// returns how many blocks it moved; the caller moves the rest.
func permuteBlocksFast(dst, src []byte, perm []byte, n int) int {
	bs := len(perm)
	per := 64 / bs
	steps := n / per
	if !useVBMI || steps == 0 {
		return 0
	}
	var table [64]byte
	for j := range per * bs {
		table[j] = byte(j/bs*bs) + perm[j%bs]
	}
	step := per * bs
	mask := uint64(1)<<step - 1
	if step == 64 {
		mask = ^uint64(0)
	}
	permuteBlocksAVX512(&dst[0], &src[0], &table[0], mask, steps, step)
	return steps * per
}
