package bounded

import (
	"strings"
	"testing"
)

// Past its limit a Map forgets the entry put longest ago, one at a time,
// and never holds more than its limit.
func TestMapForgetsTheOldestPastItsLimit(t *testing.T) {
	m := New[string, int](2)
	m.Put("a", 1)
	m.Put("b", 2)
	if forgot, ok := m.Put("c", 3); !ok || forgot != "a" {
		t.Fatalf("putting a third: forgot %q, %v; want a", forgot, ok)
	}
	if m.Has("a") || !m.Has("b") || !m.Has("c") || m.Len() != 2 {
		t.Fatalf("after the third: a %v, b %v, c %v, %d entries", m.Has("a"), m.Has("b"), m.Has("c"), m.Len())
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
	if _, ok := m.Put("a", 10); ok {
		t.Fatal("putting a key again forgot one")
	}
	if forgot, _ := m.Put("c", 3); forgot != "b" {
		t.Fatalf("forgot %q, want b (a was put again since)", forgot)
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
	if _, ok := m.Put("c", 3); ok {
		t.Fatal("putting into the room a delete freed forgot one")
	}
	if forgot, _ := m.Put("d", 4); forgot != "b" {
		t.Fatalf("forgot %q, want b", forgot)
	}
	if m.Len() != 2 {
		t.Errorf("%d entries, want 2", m.Len())
	}
}

// All yields the entries oldest first, and stops when asked.
func TestMapAll(t *testing.T) {
	m := New[string, int](3)
	m.Put("a", 1)
	m.Put("b", 2)
	m.Put("c", 3)
	m.Put("a", 4)
	var keys []string
	for k, v := range m.All() {
		keys = append(keys, k)
		if k == "a" && v != 4 {
			t.Errorf("a: %d, want 4", v)
		}
	}
	if got := strings.Join(keys, ""); got != "bca" {
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
