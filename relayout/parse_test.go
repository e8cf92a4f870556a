package relayout

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// roundTripCases are shape texts and their canonical printed form ("" when
// the text is already canonical).
var roundTripCases = []struct{ in, want string }{
	{"bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}", ""},
	{"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", ""},
	{"s4[1024]{0:T(1024)E(4)}", ""},
	{"f32[]", ""},
	{"f32[]{}", "f32[]"},
	{"f32[]{:S(1)}", ""},
	{"(f32[2], s8[3,4]{0,1})", "(f32[2]{0}, s8[3,4]{0,1})"},
	{"f32[<=10,?]{1,0}", ""},
	{"f32[<=10,?]", "f32[<=10,?]{1,0}"},
	{"f32[5]{0:T(2,4)L(64)}", ""},
	{"s8[4,4]{1,0:T(4,4)(4,1)}", ""},
	{"f32[3]{0:#(s32)*(s32)}", ""},
	{"f32[4,4]{1,0:SC(0:2)SC(1:1,3)}", ""},
	{"f32[4]{0:P(f32[8]{0})}", ""},
	{"f32[4]{0:P(f32[8])}", "f32[4]{0:P(f32[8]{0})}"},
	{"f32[4]{0:M(16)}", ""},
	{"f32[4]{0:D(D)T(2)}", "f32[4]{0:T(2)}"},
	{"f32[4]{0:D(D,C(x))}", "f32[4]{0}"},
	{"u16[8,8]{1,0:T(2,4)(2,1,1,1)}", ""},
	{"f32[2,3]", "f32[2,3]{1,0}"},
	{"f32[2,3]{0,1}", ""},
	{"f32[0,3]{1,0}", ""},
	{"f32[3,5]{1,0:T(2,2)}", ""},
	{"bf16[3,3]{1,0:T(2,2)(2,1)}", ""},
	{"f32[2,3,5]{2,1,0:T(2,4)}", ""},
	{"f32[4]{0:T(2)L(1)}", "f32[4]{0:T(2)}"},
	{"f32[4]{0:E(0)S(0)M(0)}", "f32[4]{0}"},
	{"f32[4]{0:}", "f32[4]{0}"},
	{"f32[4]{0:T(8,128)L(2)#(u8)*(s64)E(32)S(3)SC(0:1)SC(1:)P(f32[8]{0})M(4)}", ""},
	{"f32[4]{0:T(-1,-7)E(-1)S(-2)M(-3)}", "f32[4]{0:T(*,-7)E(-1)S(-2)M(-3)}"},
	{"f32[2]{0:T()}", ""},
	{"f32[2,3]{0,0}", ""},
	{"f32[2,3]{1,0:T(0,2)}", ""},
	{"f32[2,3]{1}", ""},
	{"f32[2,3]{-1,5}", ""},
	{"()", ""},
	{"(())", ""},
	{"((f32[], token[]), opaque[])", ""},
	{"token[]", ""},
	{"token", "token[]"},
	{"opaque", "opaque[]"},
	{"  ( f32 [ 2 , <=3 ] { 0 , 1 : T ( 2 , * ) ( 1 ) L ( 4 ) } , token )  ",
		"(f32[2,<=3]{0,1:T(2,*)(1)L(4)}, token[])"},
	{"f32[<=0]{0}", ""},
	{"f32[9223372036854775807]{0}", ""},
	{"f32[1]{0:S(-9223372036854775808)}", ""},
}

// typeNames lists every element type name of XLA shape text.
var typeNames = strings.Fields(`pred s1 s2 s4 s8 s16 s32 s64 u1 u2 u4 u8 u16 u32 u64 f16
  bf16 f32 f64 c64 c128 f8e5m2 f8e4m3 f8e4m3fn f8e4m3b11fnuz f8e3m4 f8e5m2fnuz
  f8e4m3fnuz f4e2m1fn f8e8m0fnu token opaque`)

func TestParseShapeRoundTrip(t *testing.T) {
	for _, c := range roundTripCases {
		want := c.want
		if want == "" {
			want = c.in
		}
		s, err := ParseShape(c.in)
		if err != nil {
			t.Errorf("ParseShape(%q): %v", c.in, err)
			continue
		}
		if got := s.String(); got != want {
			t.Errorf("ParseShape(%q).String() = %q, want %q", c.in, got, want)
		}
		s2, err := ParseShape(s.String())
		if err != nil {
			t.Errorf("reparse of %q: %v", s.String(), err)
			continue
		}
		if !s2.Equal(s) {
			t.Errorf("reparse of %q is not Equal to the original", s.String())
		}
	}
}

func TestParseShapeTypeNames(t *testing.T) {
	if len(typeNames) != 32 {
		t.Fatalf("type list has %d names", len(typeNames))
	}
	for _, name := range typeNames {
		in, want := name+"[2]", name+"[2]{0}"
		if name == "token" || name == "opaque" {
			in, want = name+"[]", name+"[]"
		}
		s, err := ParseShape(in)
		if err != nil {
			t.Errorf("ParseShape(%q): %v", in, err)
			continue
		}
		if s.DType().String() != name {
			t.Errorf("ParseShape(%q).DType() = %v", in, s.DType())
		}
		if got := s.String(); got != want {
			t.Errorf("ParseShape(%q).String() = %q, want %q", in, got, want)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%q.Validate() = %v", in, err)
		}
	}
}

func TestParseShapeStructure(t *testing.T) {
	s, err := ParseShape("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}")
	if err != nil {
		t.Fatal(err)
	}
	want := NewShape(BF16, []int64{8, 1, 1280, 16384}, &Layout{
		MinorToMajor: []int{3, 2, 0, 1},
		Tiles:        []Tile{{8, 128}, {2, 1}},
		MemorySpace:  1,
	})
	if !s.Equal(want) {
		t.Errorf("got %v, want %v", s, want)
	}

	s, err = ParseShape("f32[<=10,?,3]")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Dims(); got[0] != 10 || got[1] != UnboundedDim || got[2] != 3 {
		t.Errorf("dims = %v", got)
	}
	if !s.IsDynamic(0) || !s.IsDynamic(1) || s.IsDynamic(2) {
		t.Errorf("dynamic flags wrong for %v", s)
	}
	if l, ok := s.Layout(); !ok || !l.Equal(Layout{MinorToMajor: []int{2, 1, 0}}) {
		t.Errorf("default layout = %v, %v", l, ok)
	}

	s, err = ParseShape("f32[]")
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := s.Layout(); !ok || len(l.MinorToMajor) != 0 {
		t.Errorf("scalar layout = %v, %v", l, ok)
	}

	s, err = ParseShape("(f32[2], s8[3,4]{0,1})")
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsTuple() || len(s.TupleShapes()) != 2 {
		t.Fatalf("tuple = %v", s)
	}
	if _, ok := s.Layout(); ok {
		t.Errorf("tuple has a layout")
	}
	if !s.Equal(NewTuple(NewShape(F32, []int64{2}, nil),
		NewShape(S8, []int64{3, 4}, &Layout{MinorToMajor: []int{0, 1}}))) {
		t.Errorf("tuple = %v", s)
	}

	s, err = ParseShape("f32[4]{0:T(2)L(64)SC(1:1,3)P(f32[8]{0})M(16)E(-1)}")
	if err == nil {
		t.Errorf("out-of-order properties parsed as %v", s)
	}
	s, err = ParseShape("f32[4]{0:T(*,2)L(64)#(s32)*(u8)E(4)S(2)SC(1:1,3)P(f32[8]{0})M(16)}")
	if err != nil {
		t.Fatal(err)
	}
	l, _ := s.Layout()
	phys := NewShape(F32, []int64{8}, nil)
	want2 := Layout{
		MinorToMajor: []int{0}, Tiles: []Tile{{CombineDim, 2}}, TailPaddingAlignment: 64,
		IndexPrimitiveType: S32, PointerPrimitiveType: U8, ElementSizeInBits: 4, MemorySpace: 2,
		SplitConfigs:  []SplitConfig{{Dimension: 1, SplitIndices: []int64{1, 3}}},
		PhysicalShape: &phys, DynamicShapeMetadataPrefixBytes: 16,
	}
	if !l.Equal(want2) {
		t.Errorf("layout = %v, want %v", l, want2)
	}
	if got := want2.String(); got != "{0:T(*,2)L(64)#(s32)*(u8)E(4)S(2)SC(1:1,3)P(f32[8]{0})M(16)}" {
		t.Errorf("Layout.String() = %q", got)
	}
}

func TestPrintConstructed(t *testing.T) {
	cases := []struct {
		s    Shape
		want string
	}{
		{NewShape(F32, []int64{2, 3}, nil), "f32[2,3]{1,0}"},
		{NewShape(F32, nil, nil), "f32[]"},
		{NewShape(F32, nil, &Layout{MemorySpace: 1}), "f32[]{:S(1)}"},
		{NewShape(S4, []int64{8}, &Layout{MinorToMajor: []int{0}, ElementSizeInBits: 4, TailPaddingAlignment: 1}), "s4[8]{0:E(4)}"},
		{NewShape(F32, []int64{4, 5}, nil).WithDynamic(0), "f32[<=4,5]{1,0}"},
		{NewShape(F32, []int64{UnboundedDim}, nil).WithDynamic(-1), "f32[?]{0}"},
		{NewTuple(), "()"},
		{NewTuple(Shape{dtype: Token}, NewShape(PRED, []int64{1}, nil)), "(token[], pred[1]{0})"},
	}
	for _, c := range cases {
		if got := c.s.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
		back, err := ParseShape(c.want)
		if err != nil || !back.Equal(c.s) {
			t.Errorf("ParseShape(%q) = %v, %v; want Equal to the constructed shape", c.want, back, err)
		}
	}
}

func TestParseShapeErrors(t *testing.T) {
	cases := []struct {
		in     string
		target error
		col    int // 0: do not check
		substr string
	}{
		{"", ErrSyntax, 1, "expected element type or '(', found end of text"},
		{"f32[2,", ErrSyntax, 7, "expected dimension size"},
		{"f32[2", ErrSyntax, 6, "expected ',' or ']' after dimension, found end of text"},
		{"f33[2]", ErrUnknownType, 1, `unknown element type "f33" at column 1`},
		{"F32[2]", ErrUnknownType, 1, `"F32"`},
		{"(f32[2], f33[2])", ErrUnknownType, 10, `"f33"`},
		{"f32[2]{0", ErrSyntax, 9, "found end of text"},
		{"f32[2]x", ErrSyntax, 7, "expected end of text, found 'x'"},
		{"f32[2] {0} }", ErrSyntax, 12, "expected end of text"},
		{"f32[99999999999999999999]", ErrSyntax, 5, "does not fit in int64"},
		{"f32[2]{0:T(99999999999999999999)}", ErrSyntax, 12, "does not fit in int64"},
		{"f32[2]{0:T(2)L(0)}", ErrInvalidLayout, 14, "tail padding alignment L(0) must be at least 1"},
		{"f32[2]{0:L(-3)}", ErrInvalidLayout, 10, "L(-3)"},
		{"f32", ErrSyntax, 4, "expected '[' after element type"},
		{"f32[-1]", ErrSyntax, 5, "expected dimension size"},
		{"f32[<=-1]", ErrSyntax, 7, "expected dimension bound"},
		{"f32[<=?]", ErrSyntax, 7, "expected dimension bound"},
		{"f32[2,]", ErrSyntax, 7, "expected dimension size"},
		{"f32[2]{0,}", ErrSyntax, 10, "expected dimension number"},
		{"f32[2]{0:L(2)T(2)}", ErrSyntax, 14, `expected layout property #, *, E, S, SC, P, M or '}', found "T"`},
		{"f32[2]{0:T(2)T(2)}", ErrSyntax, 14, `found "T"`},
		{"f32[2]{0:T(2)D(D)}", ErrSyntax, 14, `found "D"`},
		{"f32[2]{0:M(1)SC(0:1)}", ErrSyntax, 14, `found "SC"`},
		{"f32[2]{0:X(1)}", ErrSyntax, 10, `found "X"`},
		{"f32[2]{0:T}", ErrSyntax, 11, "expected '(' after T"},
		{"f32[2]{0:T(2,)}", ErrSyntax, 14, "expected tile size or '*'"},
		{"f32[2]{0:#(f33)}", ErrUnknownType, 12, `"f33"`},
		{"f32[2]{0:#()}", ErrSyntax, 12, "expected element type"},
		{"f32[2]{0:D(D}", ErrSyntax, 14, "')' closing D("},
		{"f32[2]{0:SC(0)}", ErrSyntax, 14, "expected ':'"},
		{"f32[2]{0:P(f32[2]}", ErrSyntax, 18, "expected ')' closing P("},
		{"f32[2]{0:E()}", ErrSyntax, 12, "expected integer in E(...)"},
		{"(f32[2]", ErrSyntax, 8, "expected ',' or ')' after tuple element"},
		{"(f32[2],)", ErrSyntax, 9, "expected element type or '('"},
		{"token[1]", ErrSyntax, 7, "token has no dimensions"},
		{"token{}", ErrSyntax, 6, "expected end of text"},
		{"f32[2]{0:T(2)} (", ErrSyntax, 16, "expected end of text"},
		{"f32[2]{0:T(2)L(-)}", ErrSyntax, 16, "expected integer in L(...)"},
		{"é32[2]", ErrSyntax, 1, "expected element type or '(', found 'é'"},
		{"f32[2]é", ErrSyntax, 7, "found 'é'"},
		{strings.Repeat("(", 1000) + strings.Repeat(")", 1000), ErrSyntax, 0, "nested more than"},
		{strings.Repeat("f32[1]{0:P(", 300) + "f32[1]" + strings.Repeat(")}", 300), ErrSyntax, 0, "nested more than"},
	}
	for _, c := range cases {
		s, err := ParseShape(c.in)
		if err == nil {
			t.Errorf("ParseShape(%q) = %v, want an error", c.in, s)
			continue
		}
		if !errors.Is(err, c.target) {
			t.Errorf("ParseShape(%q) error %q does not wrap %q", c.in, err, c.target)
		}
		msg := err.Error()
		if c.col > 0 && !strings.Contains(msg, "at column "+strconv.Itoa(c.col)) {
			t.Errorf("ParseShape(%q) error %q, want column %d", c.in, msg, c.col)
		}
		if !strings.Contains(msg, c.substr) {
			t.Errorf("ParseShape(%q) error %q, want it to contain %q", c.in, msg, c.substr)
		}
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		in     string
		target error // nil: valid
		substr string
	}{
		{"f32[2,3]{0,0}", ErrInvalidLayout, "invalid layout: minor_to_major {0,0} repeats dimension 0"},
		{"f32[2,3]{1,0:T(0,2)}", ErrInvalidLayout, "tile T(0,2) has size 0"},
		{"f32[2,3]{1,0:T(2,-2)}", ErrInvalidLayout, "size -2"},
		{"f32[2,3]{1}", ErrInvalidLayout, "minor_to_major {1} has 1 entries but the shape has rank 2"},
		{"f32[2,3]{2,0}", ErrInvalidLayout, "names dimension 2, outside 0..1"},
		{"f32[2,3]{-1,0}", ErrInvalidLayout, "names dimension -1"},
		{"f32[]{0}", ErrInvalidLayout, "rank 0"},
		{"f32[2]{0:T()}", ErrInvalidLayout, "tile T() is empty"},
		{"f32[2]{0:T(2)()}", ErrInvalidLayout, "tile T() is empty"},
		{"f32[2]{0:E(-1)}", ErrInvalidLayout, "element size E(-1) is negative"},
		{"f32[3]{0:#(s32)}", ErrNotDense, "not a dense array"},
		{"f32[3]{0:*(s32)}", ErrNotDense, "pointer"},
		{"f32[4]{0:P(f32[8]{1})}", ErrInvalidLayout, "physical shape P(f32[8]{1})"},
		{"(f32[2], f32[2,3]{0,0})", ErrInvalidLayout, "tuple element 1: invalid layout"},
		{"f32[2,3]{1,0}", nil, ""},
		{"f32[2,3]{0,1}", nil, ""},
		{"f32[0]{0}", nil, ""},
		{"f32[]", nil, ""},
		{"f32[5]{0:T(2,4)}", nil, ""}, // tile of higher rank than the shape
		{"f32[5]{0:T(2,4,8)(2,1)}", nil, ""},
		{"f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}", nil, ""},
		{"bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)S(1)}", nil, ""},
		{"s4[1024]{0:T(1024)E(4)}", nil, ""},
		{"f32[<=10,?]{1,0}", nil, ""},
		{"f32[4,4]{1,0:SC(0:2)SC(1:1,3)P(f32[8]{0})M(16)}", nil, ""},
		{"(f32[2], (token[], opaque[]))", nil, ""},
		{"token", nil, ""},
		{"f32[2]{0:L(1)E(0)}", nil, ""},
	}
	for _, c := range cases {
		s, err := ParseShape(c.in)
		if err != nil {
			t.Errorf("ParseShape(%q): %v", c.in, err)
			continue
		}
		err = s.Validate()
		if c.target == nil {
			if err != nil {
				t.Errorf("%q.Validate() = %v, want nil", c.in, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q.Validate() = nil, want %v", c.in, c.target)
			continue
		}
		if !errors.Is(err, c.target) {
			t.Errorf("%q.Validate() = %q, does not wrap %q", c.in, err, c.target)
		}
		if !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%q.Validate() = %q, want it to contain %q", c.in, err, c.substr)
		}
	}
}

func TestValidateConstructed(t *testing.T) {
	cases := []struct {
		s      Shape
		target error
	}{
		{NewShape(F32, []int64{-3}, nil), ErrInvalidShape},
		{NewShape(F32, []int64{UnboundedDim}, nil), ErrInvalidShape}, // -1 but not dynamic
		{NewShape(F32, []int64{UnboundedDim}, nil).WithDynamic(0), nil},
		{NewShape(F32, []int64{-2}, nil).WithDynamic(0), ErrInvalidShape},
		{NewShape(Token, []int64{2}, nil), nil},
		{Shape{}, ErrInvalidShape},
		{NewShape(F32, []int64{2}, &Layout{MinorToMajor: []int{0}, TailPaddingAlignment: -1}), ErrInvalidLayout},
		{NewShape(F32, []int64{2}, &Layout{MinorToMajor: []int{0}, TailPaddingAlignment: 0}), nil},
		{NewTuple(NewShape(F32, []int64{-3}, nil)), ErrInvalidShape},
	}
	for _, c := range cases {
		err := c.s.Validate()
		if c.target == nil && err != nil {
			t.Errorf("%v.Validate() = %v, want nil", c.s, err)
		}
		if c.target != nil && !errors.Is(err, c.target) {
			t.Errorf("%v.Validate() = %v, want %v", c.s, err, c.target)
		}
	}
}

func FuzzParseShape(f *testing.F) {
	for _, c := range roundTripCases {
		f.Add(c.in)
	}
	for _, name := range typeNames {
		f.Add(name + "[2,3]{0,1:T(2)}")
	}
	for _, s := range []string{
		"f32[2,", "f33[2]", "f32[2]{0", "f32[2]x", "f32[99999999999999999999]",
		"f32[2]{0:T(2)L(0)}", "f32[2]{0:D(D(C)),T(1)}", "(((f32[])))", "f32[2]{0:P(f32[2]{0:P(s8[1])})}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseShape(text)
		if err != nil {
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrUnknownType) && !errors.Is(err, ErrInvalidLayout) {
				t.Fatalf("ParseShape(%q) error %q wraps no parse sentinel", text, err)
			}
			return
		}
		_ = s.Validate() // must not panic
		printed := s.String()
		s2, err := ParseShape(printed)
		if err != nil {
			t.Fatalf("ParseShape(%q) -> %q, which does not parse: %v", text, printed, err)
		}
		if !s2.Equal(s) {
			t.Fatalf("ParseShape(%q) -> %q, which reparses to a different shape", text, printed)
		}
		if again := s2.String(); again != printed {
			t.Fatalf("printing is not idempotent: %q then %q", printed, again)
		}
		if (s.Validate() == nil) != (s2.Validate() == nil) {
			t.Fatalf("Validate differs between %q and its reprint", text)
		}
	})
}
