package bounded

import (
	"strings"
	"testing"
)

// keys are m's keys, oldest put first.
func keys(m *Map[string, int]) string {
	var b strings.Builder
	for k := range m.All() {
		b.WriteString(k)
	}
	return b.String()
}

// Past its limit a Map forgets the entry put longest ago, one at a time,
// and never holds more than its limit.
func TestMapForgetsTheOldestPastItsLimit(t *testing.T) {
	m := New[string, int](2)
	m.Put("a", 1)
	m.Put("b", 2)
	m.Put("c", 3)
	if got := keys(m); got != "bc" {
		t.Fatalf("after putting a third: %s, want bc (a forgotten)", got)
	}
	if m.Has("a") || !m.Has("b") || !m.Has("c") {
		t.Fatalf("after the third: a %v, b %v, c %v", m.Has("a"), m.Has("b"), m.Has("c"))
	}
	if v, ok := m.Get("c"); !ok || v != 3 {
		t.Errorf("c: %d, %v", v, ok)
	}
}

// Putting a key again replaces its value and makes it the newest, so the
// next forgotten is another.
func TestMapPutAgainMakesNewest(t *testing.T) {
	m := New[string, int](2)
	m.Put("a", 1)
	m.Put("b", 2)
	m.Put("a", 10)
	if got := keys(m); got != "ba" {
		t.Fatalf("after putting a again: %s, want ba (none forgotten)", got)
	}
	m.Put("c", 3)
	if got := keys(m); got != "ac" {
		t.Fatalf("after putting c: %s, want ac (b forgotten: a was put again since)", got)
	}
	if v, _ := m.Get("a"); v != 10 {
		t.Errorf("a: %d, want 10", v)
	}
}

// A deleted key frees its room and is not forgotten later in another's
// place.
func TestMapDelete(t *testing.T) {
	m := New[string, int](2)
	m.Put("a", 1)
	m.Put("b", 2)
	if !m.Delete("a") || m.Delete("a") {
		t.Fatal("Delete does not report what it forgot")
	}
	m.Put("c", 3)
	if got := keys(m); got != "bc" {
		t.Fatalf("after putting into the room a delete freed: %s, want bc", got)
	}
	m.Put("d", 4)
	if got := keys(m); got != "cd" {
		t.Fatalf("after putting d: %s, want cd (b forgotten)", got)
	}
}

// All yields the entries oldest first, and stops when asked.
func TestMapAll(t *testing.T) {
	m := New[string, int](3)
	m.Put("a", 1)
	m.Put("b", 2)
	m.Put("c", 3)
	m.Put("a", 4)
	var seen []string
	for k, v := range m.All() {
		seen = append(seen, k)
		if k == "a" && v != 4 {
			t.Errorf("a: %d, want 4", v)
		}
	}
	if got := strings.Join(seen, ""); got != "bca" {
		t.Errorf("All: %s, want bca", got)
	}
	for k := range m.All() {
		if k != "b" {
			t.Errorf("after stopping, got %s", k)
		}
		break
	}
}

// A limit below one is one: a Map always remembers the last put.
func TestMapLimitAtLeastOne(t *testing.T) {
	m := New[int, bool](0)
	m.Put(1, true)
	m.Put(2, true)
	if m.Has(1) || !m.Has(2) {
		t.Errorf("limit 0: has 1 %v, has 2 %v; want the last only", m.Has(1), m.Has(2))
	}
}
