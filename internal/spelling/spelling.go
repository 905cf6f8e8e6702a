package spelling

import "strings"

// Distance is the number of edits that turn a into b: a rune inserted,
// deleted or replaced, or two neighbouring runes swapped, each one edit
// (the optimal string alignment distance). Case counts.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: the one two back is what a swap looks at.
	twoBack := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], twoBack[j-2]+1)
			}
		}
		twoBack, prev, cur = prev, cur, twoBack
	}
	return prev[len(rb)]
}

// Nearest is the candidate nearest word, in any case, at most maxEdits
// away; "" when none is, or word is a candidate as it is.
func Nearest(word string, candidates []string, maxEdits int) string {
	best, bestEdits := "", maxEdits+1
	lower := strings.ToLower(word)
	for _, c := range candidates {
		if c == word {
			return ""
		}
		if d := Distance(lower, strings.ToLower(c)); d < bestEdits {
			best, bestEdits = c, d
		}
	}
	return best
}

// Suggest is the candidate word most likely misspells, or "" when none
// is near enough to say so. Near enough is, in any case: the same word;
// one edit for a word of 3 or 4 letters, two up to 9, three beyond; or,
// for a word of 4 letters or more, the start of a longer candidate
// misspelt by one edit at most (defaultAproval for defaultApprovalMode).
// A word of one or two letters is suggested only its own other case.
func Suggest(word string, candidates []string) string {
	lower := strings.ToLower(word)
	n := len([]rune(lower))
	best, bestScore := "", 0
	for _, c := range candidates {
		if c == word {
			return ""
		}
		score, ok := nearness(lower, n, strings.ToLower(c))
		if ok && (best == "" || score < bestScore) {
			best, bestScore = c, score
		}
	}
	return best
}

// nearness scores how near word (lower case, n runes) is to candidate
// (lower case): twice the edits, one more for a candidate's start, so
// that a whole word beats a start at the same distance; ok is false when
// it is not near enough.
func nearness(word string, n int, candidate string) (score int, ok bool) {
	if d := Distance(word, candidate); d <= allowedEdits(n, len([]rune(candidate))) {
		return 2 * d, true
	}
	if n < 4 {
		return 0, false
	}
	runes := []rune(candidate)
	best := -1
	for size := n - 1; size <= n+1 && size < len(runes); size++ {
		if d := Distance(word, string(runes[:size])); d <= 1 && (best < 0 || d < best) {
			best = d
		}
	}
	if best < 0 {
		return 0, false
	}
	return 2*best + 1, true
}

// allowedEdits is how many edits may part a word of n runes from a
// candidate of m, the shorter deciding.
func allowedEdits(n, m int) int {
	switch shorter := min(n, m); {
	case shorter <= 2:
		return 0
	case shorter <= 4:
		return 1
	case shorter <= 9:
		return 2
	}
	return 3
}
