package kernel

import (
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// Run-time choice of kernels. The CPU's features are read once, at package
// initialisation, into the has* variables (what the CPU offers) and the
// use* variables (what the kernels use). The use* variables are what the
// exported kernels consult on every call, so tests flip them to run every
// implementation on one machine.
//
// TILECOPY_CPU caps the level: "generic", "avx2", "avx512" or "neon" (any
// case). A cap never raises the level above what the CPU has. A value that
// names no level of this machine's architecture (a typo, or "neon" on amd64)
// selects the generic kernels: an override is a request for less assembly,
// so an unrecognised one errs on the side of none. The empty value, or an
// unset variable, means no cap.
var (
	// hasAVX2 reports AVX2 on amd64 with the assembly built in.
	hasAVX2 = haveAsm && runtime.GOARCH == "amd64" &&
		cpuid.CPU.Supports(cpuid.AVX2)
	// hasAVX512 reports AVX-512 F, BW, DQ and VL (the Skylake-server set
	// and later) on amd64 with the assembly built in, and BMI2 (BZHI),
	// which every such CPU has.
	hasAVX512 = hasAVX2 &&
		cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512DQ, cpuid.AVX512VL, cpuid.BMI2)
	// hasVBMI reports AVX-512 VBMI (VPERMB), used by the 1-byte AVX-512
	// transpose; without it 1-byte elements take the AVX2 kernel.
	hasVBMI = hasAVX512 && cpuid.CPU.Supports(cpuid.AVX512VBMI)
	// hasF16C reports F16C (VCVTPS2PH, VCVTPH2PS), used by the f16
	// conversions at AVX2 and AVX-512; without it f16 converts in Go.
	hasF16C = hasAVX2 && cpuid.CPU.Supports(cpuid.F16C)
	// hasERMS reports the fast microcoded string copy (REP MOVSB, ERMS)
	// on amd64 with the assembly built in: Copy's copy through the caches.
	hasERMS = haveAsm && runtime.GOARCH == "amd64" && cpuid.CPU.Supports(cpuid.ERMS)
	// hasNEON reports Advanced SIMD on arm64 with the assembly built in; it
	// is mandatory in ARMv8-A, so every arm64 machine Go runs on has it.
	hasNEON = haveAsm && runtime.GOARCH == "arm64"
)

// The levels in use, set by setLevel from the has* variables and
// TILECOPY_CPU. Kernels consult them on every call.
var (
	useAVX2   bool
	useAVX512 bool
	useVBMI   bool
	useF16C   bool
	useNEON   bool
	useERMS   bool
)

// Names of the levels, as TILECOPY_CPU spells them and Level returns them.
const (
	levelGeneric = "generic"
	levelAVX2    = "avx2"
	levelAVX512  = "avx512"
	levelNEON    = "neon"
)

// archLevels lists the levels of this build's architecture, best first,
// ending with generic.
func archLevels() []string {
	switch {
	case haveAsm && runtime.GOARCH == "amd64":
		return []string{levelAVX512, levelAVX2, levelGeneric}
	case haveAsm && runtime.GOARCH == "arm64":
		return []string{levelNEON, levelGeneric}
	}
	return []string{levelGeneric}
}

// cpuHas reports whether this CPU (and build) can run level.
func cpuHas(level string) bool {
	switch level {
	case levelGeneric:
		return true
	case levelAVX2:
		return hasAVX2
	case levelAVX512:
		return hasAVX512
	case levelNEON:
		return hasNEON
	}
	return false
}

// bestLevel returns the best level this CPU can run that is not above the
// cap named by override (see the package variables' comment).
func bestLevel(override string) string {
	override = strings.ToLower(strings.TrimSpace(override))
	levels := archLevels()
	start := 0
	if override != "" {
		start = len(levels) - 1 // unrecognised: generic
		for k, l := range levels {
			if l == override {
				start = k
				break
			}
		}
	}
	for _, l := range levels[start:] {
		if cpuHas(l) {
			return l
		}
	}
	return levelGeneric
}

// setLevel makes the kernels use exactly level, and reports whether this
// CPU can run it; if it cannot, nothing changes.
func setLevel(level string) bool {
	if !cpuHas(level) {
		return false
	}
	useAVX512 = level == levelAVX512
	useAVX2 = useAVX512 || level == levelAVX2
	useVBMI = useAVX512 && hasVBMI
	useF16C = useAVX2 && hasF16C
	useNEON = level == levelNEON
	useERMS = useAVX2 && hasERMS
	return true
}

func init() {
	setLevel(bestLevel(os.Getenv("TILECOPY_CPU")))
}

// Level names the kernel level in use: "avx512", "avx2", "neon" or
// "generic". It is the best level the CPU offers, capped by the
// TILECOPY_CPU environment variable read at start-up.
func Level() string {
	switch {
	case useAVX512:
		return levelAVX512
	case useAVX2:
		return levelAVX2
	case useNEON:
		return levelNEON
	}
	return levelGeneric
}

// Levels lists the kernel levels of this build's architecture, best first
// and ending with "generic", each with whether this CPU can run it.
func Levels() []LevelInfo {
	var out []LevelInfo
	for _, l := range archLevels() {
		out = append(out, LevelInfo{Name: l, Supported: cpuHas(l)})
	}
	return out
}

// LevelInfo is one kernel level and whether this CPU can run it.
type LevelInfo struct {
	Name      string
	Supported bool
}

// Features lists the CPU features cpuid reports (for example "AVX2",
// "AVX512F", "ASIMD"), sorted, as the cpuid package names them.
func Features() []string {
	return cpuid.CPU.FeatureSet()
}

// CPUName is the CPU's brand string as cpuid reports it ("" if unknown).
func CPUName() string {
	return cpuid.CPU.BrandName
}

// CacheSizes returns the data cache sizes in bytes per level (L1 data,
// L2, L3) as cpuid reports them; a size cpuid cannot tell is -1.
func CacheSizes() (l1d, l2, l3 int) {
	return cpuid.CPU.Cache.L1D, cpuid.CPU.Cache.L2, cpuid.CPU.Cache.L3
}
