package jsjson

import (
	"slices"
	"testing"
)

// Without leaves o as it was and keeps the other keys in JavaScript's
// order; an object without the key is returned as it is.
func TestWithout(t *testing.T) {
	o := NewObject()
	for _, k := range []string{"b", "2", "gone", "a", "1"} {
		o.Set(k, k)
	}
	w := o.Without("gone")
	if got, want := w.Keys(), []string{"1", "2", "b", "a"}; !slices.Equal(got, want) {
		t.Errorf("Without: keys %q, want %q", got, want)
	}
	if !o.Has("gone") {
		t.Error("Without changed the object it was called on")
	}
	if w.Without("gone") != w {
		t.Error("Without of a missing key made a copy")
	}
}
