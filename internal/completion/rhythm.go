package completion

import (
	"slices"
	"sync"
	"time"
)

// The typing rhythm the debounce adapts to: the gaps between the last
// keystrokes, those short enough to be typing rather than a pause.
const (
	rhythmKeys    = 8
	rhythmPause   = 400 * time.Millisecond // a longer gap is a pause, not the rhythm
	shortDebounce = 50 * time.Millisecond
	longDebounce  = 250 * time.Millisecond
)

// rhythm keeps the gaps between the user's last keystrokes, in every
// document.
type rhythm struct {
	mu   sync.Mutex
	last time.Time
	gaps []time.Duration // the latest last
}

func (r *rhythm) key(at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.last.IsZero() {
		if gap := at.Sub(r.last); gap > 0 && gap < rhythmPause {
			r.gaps = append(r.gaps, gap)
			if len(r.gaps) > rhythmKeys {
				r.gaps = r.gaps[1:]
			}
		}
	}
	r.last = at
}

// debounce is how long a request made as the user typed waits for the
// next key: half as long again as the user's usual gap between keys, so
// that a request goes when the user pauses, not between two keys of a
// word; between 50 and 250 ms, 50 until the rhythm is known.
func (r *rhythm) debounce() time.Duration {
	r.mu.Lock()
	gaps := slices.Clone(r.gaps)
	r.mu.Unlock()
	if len(gaps) < rhythmKeys/2 {
		return shortDebounce
	}
	slices.Sort(gaps)
	return min(max(gaps[len(gaps)/2]*3/2, shortDebounce), longDebounce)
}
