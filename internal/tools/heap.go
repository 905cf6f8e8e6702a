package tools

// The tools keep the best of what they find in a heap whose top is the
// worst kept, the one a better find replaces: grep's files with the
// first matches, glob's newest files, an @-reference's first paths.
// These are container/heap's operations over a slice of T itself, where
// container/heap boxes every element pushed or popped into an interface,
// an allocation each. above(a, b) reports whether a belongs nearer the
// top than b.

// heapPush adds x to the heap h.
func heapPush[T any](h *[]T, x T, above func(a, b T) bool) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !above(s[i], s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

// heapPop removes the top of the heap h and returns it.
func heapPop[T any](h *[]T, above func(a, b T) bool) T {
	s := *h
	var zero T
	top, last := s[0], len(s)-1
	s[0], s[last] = s[last], zero
	*h = s[:last]
	heapDown(*h, 0, above)
	return top
}

// heapDown restores the heap h below i, whose element may belong lower
// (the top replaced: container/heap's Fix of it).
func heapDown[T any](h []T, i int, above func(a, b T) bool) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && above(h[right], h[child]) {
			child = right
		}
		if !above(h[child], h[i]) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
