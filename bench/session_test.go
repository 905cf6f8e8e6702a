package bench

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// sessionTarget is what the typing session writes, at the start of the
// empty line after "// Typed here." in bigGoFile: two functions.
const sessionTarget = `func checksum(data []byte) uint32 {
	var sum uint32
	for i, b := range data {
		sum = sum*31 + uint32(b) ^ uint32(i)
	}
	if sum == 0 {
		return 1
	}
	return sum
}

func average(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	total := 0.0
	for _, v := range values {
		total += v
	}
	return total / float64(len(values))
}`

// sessionSeed makes the session the benchmarks replay.
const sessionSeed = 33

// keystroke is one key of the session: at At after the session's start,
// Del bytes before the cursor are deleted (a backspace) and Text is
// inserted at the cursor.
type keystroke struct {
	At   time.Duration
	Del  int
	Text string
}

// The session's timing: a key every 60 to 120 ms, now and then (and
// often at the start of a line) a pause of 400 to 1000 ms to think, and
// a typo noticed after 150 to 400 ms and erased.
const (
	keyGapMin, keyGapMax    = 60 * time.Millisecond, 120 * time.Millisecond
	pauseMin, pauseMax      = 400 * time.Millisecond, 1000 * time.Millisecond
	noticeMin, noticeMax    = 150 * time.Millisecond, 400 * time.Millisecond
	pauseChance, linePause  = 0.05, 0.5
	typoChance              = 0.03
	typoKeys                = "qwertasdfgzxcv"
	predictableLineChance   = 0.75
	unpredictableSuggestion = "/*?*/"
)

// typingSession is the session made from seed: target typed key by key
// as a person does in an editor that indents a new line itself (Enter
// inserts the line break and the next line's indentation; no brackets are
// closed automatically).
func typingSession(seed uint64, target string) []keystroke {
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc908))
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(rng.Int64N(int64(hi-lo)+1)) }
	var keys []keystroke
	at := time.Duration(0)
	press := func(gap time.Duration, del int, text string) {
		at += gap
		keys = append(keys, keystroke{At: at, Del: del, Text: text})
	}
	lines := strings.Split(target, "\n")
	for n, line := range lines {
		content := strings.TrimLeft(line, "\t")
		for i, r := range content {
			gap := between(keyGapMin, keyGapMax)
			if (i == 0 && n > 0 && rng.Float64() < linePause) || rng.Float64() < pauseChance {
				gap = between(pauseMin, pauseMax)
			}
			if i > 0 && rng.Float64() < typoChance {
				wrong := rune(typoKeys[rng.IntN(len(typoKeys))])
				if wrong != r {
					press(gap, 0, string(wrong))
					press(between(noticeMin, noticeMax), 1, "")
					gap = between(keyGapMin, keyGapMax)
				}
			}
			press(gap, 0, string(r))
		}
		if n+1 < len(lines) {
			next := lines[n+1]
			press(between(keyGapMin, keyGapMax), 0, "\n"+next[:len(next)-len(strings.TrimLeft(next, "\t"))])
		}
	}
	return keys
}

// predictableLines says, for each line of target, whether the fake model
// foresees it (else it suggests unpredictableSuggestion there).
func predictableLines(seed uint64, target string) []bool {
	rng := rand.New(rand.NewPCG(seed, 0xbb67ae8584caa73b))
	out := make([]bool, strings.Count(target, "\n")+1)
	for i := range out {
		out[i] = rng.Float64() < predictableLineChance
	}
	return out
}

// foresee is the fake model's completion when the user has typed typed
// of target: the rest of the line being typed when that line is one it
// foresees, a wrong guess when not, nothing at the end of a line or
// after a typo.
func foresee(typed, target string, predictable []bool) string {
	rest, ok := strings.CutPrefix(target, typed)
	if !ok {
		return ""
	}
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	if rest == "" {
		return ""
	}
	if !predictable[strings.Count(typed, "\n")] {
		return unpredictableSuggestion
	}
	return rest
}

func TestTypingSessionTypesTheTargetAtHumanSpeed(t *testing.T) {
	keys := typingSession(sessionSeed, sessionTarget)
	var text []byte
	typos := 0
	for i, k := range keys {
		if k.Del > 0 {
			typos++
			text = text[:len(text)-k.Del]
		}
		text = append(text, k.Text...)
		gap := k.At
		if i > 0 {
			gap -= keys[i-1].At
		}
		switch {
		case k.Del > 0 && (gap < noticeMin || gap > noticeMax):
			t.Errorf("key %d: a backspace %v after the typo", i, gap)
		case k.Del == 0 && (gap < keyGapMin || gap > keyGapMax) && (gap < pauseMin || gap > pauseMax):
			t.Errorf("key %d: %v after the key before", i, gap)
		}
	}
	if string(text) != sessionTarget {
		t.Fatalf("the session types %q, want the target", text)
	}
	if len(keys) < 300 || typos == 0 {
		t.Errorf("%d keys, %d typos: want hundreds of keys with some typos", len(keys), typos)
	}
	again := typingSession(sessionSeed, sessionTarget)
	for i := range keys {
		if keys[i] != again[i] {
			t.Fatalf("key %d differs between two sessions of one seed: %+v, %+v", i, keys[i], again[i])
		}
	}
	t.Logf("%d keys, %d typos, %v long", len(keys), typos, keys[len(keys)-1].At)
}

func TestForesee(t *testing.T) {
	target := "ab\n\tcd\n\tef"
	all := []bool{true, true, true}
	for _, tc := range []struct {
		typed string
		pred  []bool
		want  string
	}{
		{"", all, "ab"},
		{"a", all, "b"},
		{"ab", all, ""},
		{"ab\n\t", all, "cd"},
		{"ab\n\tc", []bool{true, false, true}, unpredictableSuggestion},
		{"ax", all, ""},
		{"ab\n\tcd\n\te", all, "f"},
	} {
		if got := foresee(tc.typed, target, tc.pred); got != tc.want {
			t.Errorf("foresee(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}
