package memory

// placer finds where each hunk of a patch goes in a file: the place
// nearest a line where the hunk's context and removed lines are, as
// jsdiff's distance iterator would reach it first (the line, then one
// after, one before, two after...). Lines are numbered by their text
// once, so that a place is compared in constant time whatever the length
// of its lines; around the line, windows of doubling width are searched
// with Knuth-Morris-Pratt, so that finding a place d lines away costs
// work in d and the hunk's length, never their product, and a hunk found
// nowhere costs a reading of the file. A hunk's search can still cross
// lines a later hunk's crosses again; budget bounds the whole patch's.
type placer struct {
	ids    []int          // the file's lines, each by its text's number
	number map[string]int // a line's text to its number
	budget int            // lines the searches may still read
}

// placeBudget is the work placing a patch's hunks may take, in lines
// read: enough for any patch whose hunks start in order, none past the
// line after the file's end, whatever the file has become since the
// patch was made. Such a patch's hunks are found, in all, at most 2 lines
// a line of the file from their lines (forward, the stretches searched
// are apart; backward, no further than the header's numbers go), and a
// hunk d lines away costs at most 12 d + 7 a line of it + 96 (see place),
// a hunk found nowhere, which ends the patch, 12 a line of the file more:
// 36 a line of the file in all, and 103 a line of the patch.
func placeBudget(fileLines int, hunks []hunk) int {
	patchLines := 0
	for _, h := range hunks {
		patchLines += len(h.lines) + 1
	}
	return 64*fileLines + 128*patchLines + 128
}

func newPlacer(lines []string, hunks []hunk) *placer {
	pl := &placer{ids: make([]int, len(lines)), number: make(map[string]int, len(lines)), budget: placeBudget(len(lines), hunks)}
	for i, l := range lines {
		n, ok := pl.number[l]
		if !ok {
			n = len(pl.number)
			pl.number[l] = n
		}
		pl.ids[i] = n
	}
	return pl
}

// minWindow is the first search's reach on either side of the line.
const minWindow = 16

// place is where h goes in the file at or after line lo, looked for
// from line hint (clamped into the places possible, which changes none
// of jsdiff's order among them).
func (pl *placer) place(h hunk, hint, lo int) (int, error) {
	pattern, ok := pl.oldLines(h)
	if !ok {
		return 0, errDoesNotApply
	}
	hi := len(pl.ids) - len(pattern) // the last place it fits
	if hi < lo {
		return 0, errDoesNotApply
	}
	start := min(max(hint, lo), hi)
	if len(pattern) == 0 {
		return start, nil
	}
	if err := pl.spend(len(pattern)); err != nil {
		return 0, err
	}
	fail := failureTable(pattern)
	// A place found within reach is the nearest: every place outside is
	// farther. Each window reads at most 3 reach lines (reach is at least
	// the pattern's length), the windows up to twice the distance found
	// (or the file) 12 times it in all.
	for reach := max(len(pattern), minWindow); ; reach *= 2 {
		from, to := max(lo, start-reach), min(hi, start+reach)
		if err := pl.spend(to - from + len(pattern)); err != nil {
			return 0, err
		}
		if at, ok := nearest(pl.ids[from:to+len(pattern)], pattern, fail, start-from); ok {
			return from + at, nil
		}
		if from == lo && to == hi {
			return 0, errDoesNotApply
		}
	}
}

// spend takes n lines of reading from the budget, or says it is gone.
func (pl *placer) spend(n int) error {
	if n > pl.budget {
		return errTooFar
	}
	pl.budget -= n
	return nil
}

// oldLines are the numbers of h's context and removed lines; false when
// one of them is nowhere in the file.
func (pl *placer) oldLines(h hunk) ([]int, bool) {
	var out []int
	for _, l := range h.lines {
		if l[0] != ' ' && l[0] != '-' {
			continue
		}
		n, ok := pl.number[l[1:]]
		if !ok {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// failureTable is Knuth-Morris-Pratt's: fail[i] is the length of the
// longest proper prefix of pattern[:i+1] that is also its suffix.
func failureTable(pattern []int) []int {
	fail := make([]int, len(pattern))
	k := 0
	for i := 1; i < len(pattern); i++ {
		for k > 0 && pattern[i] != pattern[k] {
			k = fail[k-1]
		}
		if pattern[i] == pattern[k] {
			k++
		}
		fail[i] = k
	}
	return fail
}

// nearest is the place in text where pattern starts nearest to start, a
// place after before one before at the same distance, as jsdiff tries
// them; false when there is none.
func nearest(text, pattern, fail []int, start int) (int, bool) {
	before := -1
	k := 0
	for i, id := range text {
		for k > 0 && id != pattern[k] {
			k = fail[k-1]
		}
		if id == pattern[k] {
			k++
		}
		if k < len(pattern) {
			continue
		}
		at := i + 1 - len(pattern)
		k = fail[k-1]
		if at < start {
			before = at
			continue
		}
		// The first place at or after start: it wins unless the last
		// one before is nearer.
		if before >= 0 && start-before < at-start {
			return before, true
		}
		return at, true
	}
	return before, before >= 0
}
