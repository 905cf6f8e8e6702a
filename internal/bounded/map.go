package bounded

import (
	"container/list"
	"iter"
)

// Map is a map of at most a limit of entries: putting one more forgets
// the entry put longest ago. It is not safe for concurrent use; its
// owner's lock guards it. Make one with New.
type Map[K comparable, V any] struct {
	limit   int
	entries map[K]*list.Element // each holds an entry[K, V]
	order   list.List           // oldest put at the front
}

type entry[K comparable, V any] struct {
	key K
	val V
}

// New is an empty Map of at most limit entries (at least one).
func New[K comparable, V any](limit int) *Map[K, V] {
	return &Map[K, V]{limit: max(limit, 1), entries: make(map[K]*list.Element)}
}

// Put remembers v for k, as the newest entry, and forgets the oldest
// when there are more than the limit.
func (m *Map[K, V]) Put(k K, v V) {
	if e, had := m.entries[k]; had {
		e.Value = entry[K, V]{k, v}
		m.order.MoveToBack(e)
		return
	}
	m.entries[k] = m.order.PushBack(entry[K, V]{k, v})
	if m.order.Len() > m.limit {
		oldest := m.order.Remove(m.order.Front()).(entry[K, V])
		delete(m.entries, oldest.key)
	}
}

// Get is what is remembered for k.
func (m *Map[K, V]) Get(k K) (v V, ok bool) {
	e, ok := m.entries[k]
	if !ok {
		return v, false
	}
	return e.Value.(entry[K, V]).val, true
}

// Has reports whether something is remembered for k.
func (m *Map[K, V]) Has(k K) bool {
	_, ok := m.entries[k]
	return ok
}

// Delete forgets k, and reports whether it was remembered.
func (m *Map[K, V]) Delete(k K) bool {
	e, ok := m.entries[k]
	if ok {
		m.order.Remove(e)
		delete(m.entries, k)
	}
	return ok
}

// All is the entries, the oldest put first.
func (m *Map[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for e := m.order.Front(); e != nil; e = e.Next() {
			en := e.Value.(entry[K, V])
			if !yield(en.key, en.val) {
				return
			}
		}
	}
}
