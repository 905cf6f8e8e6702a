package sandboxtrail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A closed window without its end never ends: a change any time after
// its start, below its writable path, is found, as is one at the ends
// of the range a window's times can take.
func TestAWindowWithoutItsEndNeverEnds(t *testing.T) {
	w := strings.ReplaceAll(filepath.FromSlash("/w"), `\`, `\\`)
	ws, err := parseClosed("closed.jsonl", []byte(`{"writable":["`+w+`"],"from":1000}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(filepath.FromSlash("/w"), "x")
	for _, at := range []int64{1000, int64(time.Hour), 1<<63 - 1} {
		if _, _, ok := windowOf(ws, p, at); !ok {
			t.Errorf("a change at %d after a window from 1000 without an end is not found", at)
		}
	}
	edge := []Window{{Writable: []string{filepath.FromSlash("/w")}, From: -1 << 63, To: -1<<63 + 1}}
	if _, _, ok := windowOf(edge, p, -1<<63); !ok {
		t.Errorf("a change at the earliest time a window can start is not found")
	}
}

// A closed window that ends before it begins (the clock was set back
// while it was open) spans both, merged with others or not.
func TestAWindowThatEndsBeforeItBeginsSpansBoth(t *testing.T) {
	w := strings.ReplaceAll(filepath.FromSlash("/w"), `\`, `\\`)
	h := int64(time.Hour)
	ws, err := parseClosed("closed.jsonl", fmt.Appendf(nil, `{"writable":["%s"],"from":%d,"to":%d}`+"\n"+`{"writable":["%s"],"from":%d,"to":%d}`+"\n",
		w, 5*h, h, w, 2*h, 3*h))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(filepath.FromSlash("/w"), "x")
	for name, got := range map[string][]Window{"read": ws, "merged": merge(slices.Clone(ws), mergeGap)} {
		for _, at := range []int64{h + h/2, 4 * h} {
			if _, _, ok := windowOf(got, p, at); !ok {
				t.Errorf("%s: a change at %v, between a window's end at 1h and its start at 5h, is not found", name, time.Duration(at))
			}
		}
	}
}

// FuzzParseClosed: whatever closed.jsonl holds, reading it never panics;
// what is read, merged as compaction does and written back, reads back
// the same; and merging only widens: a change below a window's writable
// path at its start, middle or end (outside its roots' .gemini) is found among
// the merged windows too.
//
//	go test -run '^$' -fuzz FuzzParseClosed ./internal/sandboxtrail/
func FuzzParseClosed(f *testing.F) {
	w, v := filepath.FromSlash("/w"), filepath.FromSlash("/v")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, seed := range []string{
		"",
		`{"writable":[` + q(w) + `],"roots":[` + q(w) + `],"from":1,"to":2}` + "\n",
		`{"writable":[` + q(w) + `],"from":5}` + "\n" + `{"writable":[` + q(w) + `],"from":1,"to":3}` + "\n",
		`{"writable":[` + q(w) + `],"from":-9223372036854775808,"to":1}` + "\n" + `{"writable":[` + q(w) + `],"from":9223372036854775807,"to":9223372036854775807}` + "\n",
		`{"writable":[` + q(v) + `,` + q(w) + `],"from":1,"to":2}` + "\n\n" + `{"writable":[` + q(w),
		"{\"writable\":[\"\x00\"]}\n",
		"not json\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, err := parseClosed("closed.jsonl", data)
		if err != nil {
			return
		}
		merged := merge(slices.Clone(ws), mergeGap)
		var out bytes.Buffer
		for _, m := range merged {
			line, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("writing back %+v: %v", m, err)
			}
			out.Write(append(line, '\n'))
		}
		again, err := parseClosed("closed.jsonl", out.Bytes())
		if err != nil {
			t.Fatalf("what compaction writes does not read back: %v\n%s", err, out.Bytes())
		}
		if len(again) != len(merged) {
			t.Fatalf("compaction wrote %d windows, %d read back", len(merged), len(again))
		}
		for i := range again {
			if !equalWindows(again[i], merged[i]) {
				t.Fatalf("window %d written as %+v reads back as %+v", i, merged[i], again[i])
			}
		}
		for _, w := range ws {
			for _, writable := range w.Writable {
				if !filepath.IsAbs(writable) || filepath.Clean(writable) != writable || strings.ContainsRune(writable, 0) {
					continue
				}
				p := filepath.Join(writable, "x")
				if _, _, ok := windowOf([]Window{w}, p, w.From); !ok {
					if !slices.ContainsFunc(w.Roots, func(root string) bool { return couldNotWrite(root, p) }) {
						t.Fatalf("a change at the start of %+v below %s is not found", w, writable)
					}
					continue
				}
				for _, at := range []int64{w.From, w.From/2 + w.To/2, w.To} {
					if _, _, ok := windowOf(merged, p, at); !ok {
						t.Fatalf("a change at %d in %+v below %s is in no merged window: %+v", at, w, writable, merged)
					}
				}
			}
		}
	})
}

// couldNotWrite says p lies in root's .gemini, which a sandbox keeps
// read-only.
func couldNotWrite(root, p string) bool {
	return !couldWriteIn(Window{Writable: []string{p}, Roots: []string{root}}, p)
}

func equalWindows(a, b Window) bool {
	return slices.Equal(a.Writable, b.Writable) && slices.Equal(a.Roots, b.Roots) && a.From == b.From && a.To == b.To
}
