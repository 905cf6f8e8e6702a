package lazyregexp

import (
	"regexp"
	"testing"
)

// TestCompiledOnFirstUse: nothing is compiled until a method is called,
// and then once, to the expression regexp compiles.
func TestCompiledOnFirstUse(t *testing.T) {
	r := New(`(\w+)@(\w+)`)
	if r.re != nil {
		t.Fatal("compiled before first use")
	}
	if got := r.FindStringSubmatch("mail ada@example"); len(got) != 3 || got[1] != "ada" || got[2] != "example" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	first := r.Regexp()
	if r.Regexp() != first {
		t.Fatal("compiled twice")
	}
	if first.String() != regexp.MustCompile(`(\w+)@(\w+)`).String() || r.String() != `(\w+)@(\w+)` {
		t.Fatalf("compiled %q", first)
	}
}

// TestInvalidPanicsOnFirstUse: a bad expression is reported, as
// regexp.MustCompile reports it, when first used.
func TestInvalidPanicsOnFirstUse(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an invalid expression")
		}
	}()
	r.MatchString("x")
}
