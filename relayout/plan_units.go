package relayout

import "fmt"

// countBytes turns a plan of packed units whose strides and offsets
// count elements (step > 1: widen left them so, as some are not whole
// units) into one whose strides and offsets count bytes of e elements
// each (step unit/e), where every stride and offset is whole bytes; the
// counts stay in units and elements. The walker then moves the units
// on any byte, as it moves units of byte-wide elements. It reports
// false, leaving p as it was, where some are not. A column-major u4 array of
// 4124 values a column from T(8,128)(8,1) tiles: each column's 8-value
// runs are 4 bytes on both sides, its columns 2062 bytes apart.
func (p *walkPlan) countBytes(e int64) bool {
	k := p.unit
	if p.step != k || k%e != 0 || p.tail[0]%e != 0 || p.tail[1]%e != 0 || p.ahead%e != 0 {
		return false
	}
	loops := make([]*ploop, 0, len(p.loops)+2)
	for i := range p.loops {
		loops = append(loops, &p.loops[i])
	}
	loops = append(loops, &p.inner)
	if p.outer != nil {
		loops = append(loops, p.outer)
	}
	for _, l := range loops {
		if l.dst%e != 0 || l.src%e != 0 {
			return false
		}
	}
	for _, l := range loops {
		l.dst, l.src = l.dst/e, l.src/e
	}
	p.step = k / e
	p.tail = [2]int64{p.tail[0] / e, p.tail[1] / e}
	p.ahead /= e
	p.why = append(p.why, fmt.Sprintf("units: strides and offsets count bytes of %d packed elements", e))
	return true
}
