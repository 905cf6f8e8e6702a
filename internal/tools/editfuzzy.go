package tools

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
)

// The fuzzy stage is Gemini CLI 0.61's fuzzy strategy
// (calculateFuzzyReplacement in edit.ts), the last before the LLM fix: a
// window of as many whole lines as old_string has is taken for it when
// their Levenshtein distance, whitespace differences counting a tenth of
// others, is at most a tenth of old_string's length. Lengths and
// distances count UTF-16 code units, as JavaScript's do, so the same
// windows qualify.

const (
	// fuzzyThreshold is the most a window may differ from old_string,
	// per unit of its length.
	fuzzyThreshold = 0.1
	// whitespacePenalty is what a difference in whitespace costs,
	// against one in anything else.
	whitespacePenalty = 0.1
	// fuzzyMinLength: a shorter old_string is never matched fuzzily;
	// too much would be alike.
	fuzzyMinLength = 10
	// fuzzyMaxWork bounds the file's lines × old_string's length², the
	// comparisons' cost: beyond it the search is not made.
	fuzzyMaxWork = 400_000_000
)

// fuzzy returns a splice per window of fl's lines taken for old (LF), the
// closest first among overlapping ones, with new (LF) re-indented to each
// (reindent), and the first window's error when new could not be
// re-indented to one (its splice then replaces nothing). raw is
// old_string as written, whose length the limits apply to, as Gemini CLI
// applies them.
func (fl fileLines) fuzzy(raw, old, new string) ([]splice, error) {
	rawLen := len(utf16.Encode([]rune(raw)))
	if rawLen < fuzzyMinLength || float64(len(fl.starts))*float64(rawLen)*float64(rawLen) > fuzzyMaxWork {
		return nil, nil
	}
	oldLines := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	if firstNonBlank(oldLines) < 0 {
		return nil, nil // nothing to be alike to
	}
	var out []splice
	var unreindentable error
	newLines := strings.Split(new, "\n")
	for _, i := range fl.closestWindows(oldLines) {
		last := i + len(oldLines) - 1
		block := make([]string, len(oldLines))
		for k := range block {
			block[k] = fl.line(i + k)
		}
		s := splice{start: fl.starts[i], end: fl.ends[last]}
		with, err := reindent(newLines, oldLines, block)
		switch {
		case err != nil:
			unreindentable = cmp.Or(unreindentable, fmt.Errorf("at line %d: %w", i+1, err))
			with = fl.text[s.start:s.end]
		case fl.after(last) > fl.ends[last]:
			// The window's last line break goes with it, and new_string
			// ends with one unless it is empty (deleting the lines), as
			// Gemini CLI's flexible strategy has it; its fuzzy one would
			// add a second after a new_string ending with one.
			s.end = fl.after(last)
			if new != "" && !strings.HasSuffix(with, "\n") {
				with += "\n"
			}
		default:
			// The file's last line, without a line break: it gets none.
			with = strings.TrimSuffix(with, "\n")
		}
		s.with = withEOL(fl.text[s.start:s.end], with)
		out = append(out, s)
	}
	return out, unreindentable
}

// closestWindows returns where the windows of fl's lines taken for
// oldLines start, ascending: each within the threshold, and of any that
// overlap the closest (the first of equally close ones).
func (fl fileLines) closestWindows(oldLines []string) []int {
	search := make([]string, len(oldLines))
	for k, l := range oldLines {
		search[k] = trimEndJS(l)
	}
	want := utf16.Encode([]rune(strings.Join(search, "\n")))
	if len(want) == 0 {
		return nil
	}
	wantStripped := stripSpaceJS(want)
	type candidate struct {
		at    int
		score float64
	}
	var candidates []candidate
	n := len(oldLines)
	window := make([]string, n)
	for i := 0; i+n <= len(fl.starts); i++ {
		for k := range window {
			window[k] = trimEndJS(fl.line(i + k))
		}
		have := utf16.Encode([]rune(strings.Join(window, "\n")))
		if float64(abs(len(have)-len(want)))/float64(len(want)) > fuzzyThreshold/whitespacePenalty {
			continue
		}
		if score, ok := fuzzyScore(have, want, wantStripped); ok {
			candidates = append(candidates, candidate{i, score})
		}
	}
	slices.SortStableFunc(candidates, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.at, b.at))
	})
	var chosen []int
	for _, c := range candidates {
		if !slices.ContainsFunc(chosen, func(at int) bool { return abs(at-c.at) < n }) {
			chosen = append(chosen, c.at)
		}
	}
	slices.Sort(chosen)
	return chosen
}

// fuzzyScore is how much have differs from want, per unit of want's
// length, and whether that is within the threshold. The distance
// ignoring whitespace is never more than the whole one and costs in
// full, so a window whose stripped distance alone is past the threshold
// is dismissed without the whole one.
func fuzzyScore(have, want, wantStripped []uint16) (float64, bool) {
	limit := len(want) / 10 // the stripped distance d is within the threshold only if 10d ≤ len(want)
	dNorm, ok := levenshtein(stripSpaceJS(have), wantStripped, limit)
	if !ok {
		return 0, false
	}
	dRaw, _ := levenshtein(have, want, len(have)+len(want))
	// The explicit conversion keeps the product rounded on its own, as
	// JavaScript rounds it, rather than fused into the sum.
	weighted := float64(dNorm) + float64(float64(dRaw-dNorm)*whitespacePenalty)
	score := weighted / float64(len(want))
	return score, score <= fuzzyThreshold
}

// levenshtein is the edit distance of a and b, and whether it is at most
// limit (when it is not, the distance is not computed to the end).
func levenshtein(a, b []uint16, limit int) (int, bool) {
	if abs(len(a)-len(b)) > limit {
		return 0, false
	}
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := range a {
		diagonal := row[0]
		row[0] = i + 1
		least := row[0]
		for j := range b {
			cost := diagonal
			if a[i] != b[j] {
				cost = 1 + min(diagonal, row[j], row[j+1])
			}
			diagonal, row[j+1] = row[j+1], cost
			least = min(least, cost)
		}
		if least > limit {
			return 0, false
		}
	}
	return row[len(b)], row[len(b)] <= limit
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// isSpaceJS reports whether u is whitespace to JavaScript's \s and trim.
func isSpaceJS(u uint16) bool {
	switch u {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x00a0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return u >= 0x2000 && u <= 0x200a
}

// trimEndJS is JavaScript's trimEnd.
func trimEndJS(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool { return r <= 0xffff && isSpaceJS(uint16(r)) })
}

// stripSpaceJS is s without JavaScript whitespace.
func stripSpaceJS(s []uint16) []uint16 {
	return slices.DeleteFunc(slices.Clone(s), isSpaceJS)
}
