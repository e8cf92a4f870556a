package relayout

import "github.com/tilecopy/tilecopy/internal/kernel"

// currentTuning is the tilecopy tuning in use, which a plan reads when it
// is compiled: its streaming thresholds and the size from which its Run
// splits among threads. Where TILECOPY_TUNING did not load, that is the
// defaults, and cmd/relayout's cpu command says why.
func currentTuning() kernel.Tuning {
	t, _ := kernel.CurrentTuning()
	return t
}
