package relayout

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxNesting bounds how deeply tuples and P(...) physical shapes may nest in
// shape text, so that hostile input cannot exhaust the stack.
const maxNesting = 256

// ParseShape parses XLA shape text, such as
//
//	bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}
//	(f32[2], s8[3,4]{0,1})
//	f32[<=10,?]{1,0}
//
// An array is TYPE[dims] followed by an optional {layout}; without one it
// gets the row-major layout. A dimension is N, <=N (bounded dynamic) or ?
// (unbounded dynamic, size UnboundedDim). token and opaque may be written
// with or without "[]". Tuples are parenthesised, comma-separated lists of
// shapes. Inside a layout, the minor_to_major list may be followed by ':'
// and the properties T(..)(..), L(n), #(type), *(type), E(n), S(n),
// SC(dim:i,...), P(shape) and M(n), in that order; a leading D(...) is
// accepted and dropped. Whitespace between tokens is ignored.
//
// Parsing is syntactic: a layout that parses may still be rejected by
// Validate. The one exception is L(n) with n < 1, which is reported at once
// as ErrInvalidLayout because a stored 0 would read as "no alignment".
// Other errors wrap ErrSyntax or ErrUnknownType and give the 1-based column.
func ParseShape(text string) (Shape, error) {
	p := &shapeParser{text: text}
	s, err := p.shape()
	if err != nil {
		return Shape{}, err
	}
	p.skipSpace()
	if !p.atEnd() {
		return Shape{}, p.expected("end of text")
	}
	return s, nil
}

// shapeParser is a recursive-descent parser over one shape text.
type shapeParser struct {
	text  string
	pos   int // byte offset of the next unread byte
	depth int // current nesting of shapes
}

// Layout property kinds, in the order the text must give them.
const (
	propD = iota
	propT
	propL
	propIndexType
	propPointerType
	propE
	propS
	propSC
	propP
	propM
	numProps
)

var propNames = [numProps]string{"D", "T", "L", "#", "*", "E", "S", "SC", "P", "M"}

func (p *shapeParser) atEnd() bool { return p.pos >= len(p.text) }

func (p *shapeParser) skipSpace() {
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// peekIs skips whitespace and reports whether the next byte is c.
func (p *shapeParser) peekIs(c byte) bool {
	p.skipSpace()
	return p.pos < len(p.text) && p.text[p.pos] == c
}

// eat skips whitespace and consumes c if it comes next.
func (p *shapeParser) eat(c byte) bool {
	if p.peekIs(c) {
		p.pos++
		return true
	}
	return false
}

// column is the 1-based column, in runes, of byte offset pos.
func (p *shapeParser) column(pos int) int {
	return utf8.RuneCountInString(p.text[:min(pos, len(p.text))]) + 1
}

// found describes what the text holds at byte offset pos.
func (p *shapeParser) found(pos int) string {
	if pos >= len(p.text) {
		return "end of text"
	}
	r, _ := utf8.DecodeRuneInString(p.text[pos:])
	return fmt.Sprintf("%q", r)
}

// syntaxErr returns an ErrSyntax error at byte offset pos.
func (p *shapeParser) syntaxErr(pos int, format string, args ...any) error {
	return fmt.Errorf("%w at column %d: %s", ErrSyntax, p.column(pos), fmt.Sprintf(format, args...))
}

// expected reports that what was expected at the current position.
func (p *shapeParser) expected(what string) error {
	p.skipSpace()
	return p.syntaxErr(p.pos, "expected %s, found %s", what, p.found(p.pos))
}

// require consumes c or reports what was expected instead.
func (p *shapeParser) require(c byte, what string) error {
	if p.eat(c) {
		return nil
	}
	return p.expected(what)
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// ident consumes an identifier (a letter, then letters, digits and '_').
func (p *shapeParser) ident() string {
	p.skipSpace()
	start := p.pos
	if p.pos < len(p.text) && isLetter(p.text[p.pos]) {
		p.pos++
		for p.pos < len(p.text) && (isLetter(p.text[p.pos]) || isDigit(p.text[p.pos]) || p.text[p.pos] == '_') {
			p.pos++
		}
	}
	return p.text[start:p.pos]
}

// number consumes a decimal integer, with a leading '-' when signed is set.
// what names the number in the error when there is none.
func (p *shapeParser) number(signed bool, what string) (int64, error) {
	p.skipSpace()
	start := p.pos
	if signed && p.pos < len(p.text) && p.text[p.pos] == '-' {
		p.pos++
	}
	digits := p.pos
	for p.pos < len(p.text) && isDigit(p.text[p.pos]) {
		p.pos++
	}
	if p.pos == digits {
		p.pos = start
		return 0, p.expected(what)
	}
	v, err := strconv.ParseInt(p.text[start:p.pos], 10, 64)
	if err != nil {
		num := p.text[start:p.pos]
		if len(num) > 40 {
			num = num[:37] + "..."
		}
		return 0, p.syntaxErr(start, "number %s does not fit in int64", num)
	}
	return v, nil
}

// int64List consumes a comma-separated list of signed integers up to and
// including the closing byte end. The list may be empty.
func (p *shapeParser) int64List(end byte, what string) ([]int64, error) {
	out := []int64{}
	if p.eat(end) {
		return out, nil
	}
	for {
		v, err := p.number(true, what)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if p.eat(',') {
			continue
		}
		if p.eat(end) {
			return out, nil
		}
		return nil, p.expected(fmt.Sprintf("',' or '%c' after %s", end, what))
	}
}

// shape parses one shape: a tuple, token, opaque or array.
func (p *shapeParser) shape() (Shape, error) {
	p.depth++
	defer func() { p.depth-- }()
	p.skipSpace()
	if p.depth > maxNesting {
		return Shape{}, p.syntaxErr(p.pos, "shapes nested more than %d deep", maxNesting)
	}
	if p.eat('(') {
		return p.tuple()
	}
	start := p.pos
	name := p.ident()
	if name == "" {
		return Shape{}, p.expected("element type or '('")
	}
	t, err := ParseDType(name)
	if err != nil {
		return Shape{}, fmt.Errorf("%w %q at column %d", ErrUnknownType, name, p.column(start))
	}
	if !t.IsArray() { // token or opaque
		if p.eat('[') {
			if err := p.require(']', fmt.Sprintf("']' (%s has no dimensions)", t)); err != nil {
				return Shape{}, err
			}
		}
		return Shape{dtype: t}, nil
	}
	if err := p.require('[', "'[' after element type"); err != nil {
		return Shape{}, err
	}
	dims, dynamic, err := p.dims()
	if err != nil {
		return Shape{}, err
	}
	s := Shape{dtype: t, dims: dims, dynamic: dynamic}
	if p.peekIs('{') {
		l, err := p.layout()
		if err != nil {
			return Shape{}, err
		}
		s.layout = &l
	} else {
		s.layout = &Layout{MinorToMajor: RowMajor(len(dims))}
	}
	return s, nil
}

// tuple parses the elements of a tuple after its '('.
func (p *shapeParser) tuple() (Shape, error) {
	s := Shape{dtype: Tuple, tuple: []Shape{}}
	if p.eat(')') {
		return s, nil
	}
	for {
		e, err := p.shape()
		if err != nil {
			return Shape{}, err
		}
		s.tuple = append(s.tuple, e)
		if p.eat(',') {
			continue
		}
		if p.eat(')') {
			return s, nil
		}
		return Shape{}, p.expected("',' or ')' after tuple element")
	}
}

// dims parses an array's dimensions after its '['. dynamic is nil when no
// dimension is dynamic.
func (p *shapeParser) dims() (dims []int64, dynamic []bool, err error) {
	dims = []int64{}
	if p.eat(']') {
		return dims, nil, nil
	}
	const what = "dimension size, '<=N' or '?'"
	for {
		p.skipSpace()
		var d int64
		dyn := false
		switch {
		case strings.HasPrefix(p.text[p.pos:], "<="):
			p.pos += 2
			dyn = true
			if d, err = p.number(false, "dimension bound after '<='"); err != nil {
				return nil, nil, err
			}
		case p.eat('?'):
			dyn = true
			d = UnboundedDim
		case p.pos < len(p.text) && isDigit(p.text[p.pos]):
			if d, err = p.number(false, what); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, p.expected(what)
		}
		if dyn && dynamic == nil {
			dynamic = make([]bool, len(dims), len(dims)+1)
		}
		dims = append(dims, d)
		if dynamic != nil {
			dynamic = append(dynamic, dyn)
		}
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			return dims, dynamic, nil
		}
		return nil, nil, p.expected("',' or ']' after dimension")
	}
}

// layout parses a {...} layout; the next byte is '{'.
func (p *shapeParser) layout() (Layout, error) {
	p.eat('{')
	l := Layout{MinorToMajor: []int{}}
	if !p.peekIs('}') && !p.peekIs(':') {
		for {
			p.skipSpace()
			start := p.pos
			v, err := p.number(true, "dimension number in minor_to_major")
			if err != nil {
				return Layout{}, err
			}
			if int64(int(v)) != v {
				return Layout{}, p.syntaxErr(start, "dimension number %d does not fit in int", v)
			}
			l.MinorToMajor = append(l.MinorToMajor, int(v))
			if !p.eat(',') {
				break
			}
		}
	}
	if p.eat(':') {
		if err := p.properties(&l); err != nil {
			return Layout{}, err
		}
		if err := p.require('}', "'}' at the end of the layout"); err != nil {
			return Layout{}, err
		}
		return l, nil
	}
	if err := p.require('}', "',', ':' or '}' after minor_to_major entry"); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// propertyName consumes the name of a layout property and returns its kind,
// or -1 and the unknown name.
func (p *shapeParser) propertyName() (int, string) {
	p.skipSpace()
	if p.atEnd() {
		return -1, ""
	}
	var name string
	switch c := p.text[p.pos]; {
	case c == '#' || c == '*':
		name = p.text[p.pos : p.pos+1]
		p.pos++
	case 'A' <= c && c <= 'Z':
		start := p.pos
		for p.pos < len(p.text) && 'A' <= p.text[p.pos] && p.text[p.pos] <= 'Z' {
			p.pos++
		}
		name = p.text[start:p.pos]
	default:
		return -1, ""
	}
	for k, n := range propNames {
		if n == name {
			return k, name
		}
	}
	return -1, name
}

// allowedAfter lists the properties that may follow a property of kind last
// (-1: none yet), for error messages.
func allowedAfter(last int) string {
	var names []string
	for k := max(last, 0); k < numProps; k++ {
		if k == last && k != propSC {
			continue
		}
		names = append(names, propNames[k])
	}
	return "layout property " + strings.Join(names, ", ") + " or '}'"
}

// properties parses the layout properties after ':' up to, not including,
// the closing '}'.
func (p *shapeParser) properties(l *Layout) error {
	last := -1
	for {
		if p.peekIs('}') || p.atEnd() {
			return nil
		}
		start := p.pos
		kind, name := p.propertyName()
		if kind < 0 || kind < last || (kind == last && kind != propSC) {
			found := p.found(start)
			if name != "" {
				found = fmt.Sprintf("%q", name)
			}
			return p.syntaxErr(start, "expected %s, found %s", allowedAfter(last), found)
		}
		last = kind
		var err error
		switch kind {
		case propD:
			err = p.skipBalanced()
		case propT:
			err = p.tiles(l)
		case propL:
			var n int64
			if n, err = p.parenInt64("L"); err == nil && n < 1 {
				err = fmt.Errorf("%w at column %d: tail padding alignment L(%d) must be at least 1",
					ErrInvalidLayout, p.column(start), n)
			}
			l.TailPaddingAlignment = n
		case propIndexType:
			l.IndexPrimitiveType, err = p.parenType(name)
		case propPointerType:
			l.PointerPrimitiveType, err = p.parenType(name)
		case propE:
			l.ElementSizeInBits, err = p.parenInt64(name)
		case propS:
			l.MemorySpace, err = p.parenInt64(name)
		case propSC:
			err = p.splitConfig(l)
		case propP:
			err = p.physicalShape(l)
		case propM:
			l.DynamicShapeMetadataPrefixBytes, err = p.parenInt64(name)
		}
		if err != nil {
			return err
		}
	}
}

// skipBalanced consumes a parenthesised group with any content, such as
// the dim level types of D(D,C).
func (p *shapeParser) skipBalanced() error {
	if err := p.require('(', "'(' after D"); err != nil {
		return err
	}
	for depth := 1; depth > 0; p.pos++ {
		if p.atEnd() {
			return p.expected("')' closing D(")
		}
		switch p.text[p.pos] {
		case '(':
			depth++
		case ')':
			depth--
		}
	}
	return nil
}

// parenInt64 parses "(n)" after the property name.
func (p *shapeParser) parenInt64(name string) (int64, error) {
	if err := p.require('(', "'(' after "+name); err != nil {
		return 0, err
	}
	v, err := p.number(true, "integer in "+name+"(...)")
	if err != nil {
		return 0, err
	}
	if err := p.require(')', "')' closing "+name+"("); err != nil {
		return 0, err
	}
	return v, nil
}

// parenType parses "(type)" after the property name.
func (p *shapeParser) parenType(name string) (DType, error) {
	if err := p.require('(', "'(' after "+name); err != nil {
		return InvalidType, err
	}
	p.skipSpace()
	start := p.pos
	tn := p.ident()
	if tn == "" {
		return InvalidType, p.expected("element type in " + name + "(...)")
	}
	t, err := ParseDType(tn)
	if err != nil {
		return InvalidType, fmt.Errorf("%w %q at column %d", ErrUnknownType, tn, p.column(start))
	}
	if err := p.require(')', "')' closing "+name+"("); err != nil {
		return InvalidType, err
	}
	return t, nil
}

// tiles parses the (..)(..) groups after T; there must be at least one.
func (p *shapeParser) tiles(l *Layout) error {
	if !p.peekIs('(') {
		return p.expected("'(' after T")
	}
	for p.eat('(') {
		t := Tile{}
		if !p.eat(')') {
			for {
				if p.eat('*') {
					t = append(t, CombineDim)
				} else {
					v, err := p.number(true, "tile size or '*'")
					if err != nil {
						return err
					}
					t = append(t, v)
				}
				if p.eat(',') {
					continue
				}
				if p.eat(')') {
					break
				}
				return p.expected("',' or ')' after tile size")
			}
		}
		l.Tiles = append(l.Tiles, t)
	}
	return nil
}

// splitConfig parses "(dim:i,j,...)" after SC.
func (p *shapeParser) splitConfig(l *Layout) error {
	if err := p.require('(', "'(' after SC"); err != nil {
		return err
	}
	dim, err := p.number(true, "dimension in SC(...)")
	if err != nil {
		return err
	}
	if err := p.require(':', "':' after the dimension in SC(...)"); err != nil {
		return err
	}
	idx, err := p.int64List(')', "split index")
	if err != nil {
		return err
	}
	l.SplitConfigs = append(l.SplitConfigs, SplitConfig{Dimension: dim, SplitIndices: idx})
	return nil
}

// physicalShape parses "(shape)" after P.
func (p *shapeParser) physicalShape(l *Layout) error {
	if err := p.require('(', "'(' after P"); err != nil {
		return err
	}
	s, err := p.shape()
	if err != nil {
		return err
	}
	if err := p.require(')', "')' closing P("); err != nil {
		return err
	}
	l.PhysicalShape = &s
	return nil
}
