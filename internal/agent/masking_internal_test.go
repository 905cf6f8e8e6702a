package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/genai"
)

// The scan before each request reads only the contents added since the
// last (each output encoded once, when it stops being the latest), and
// allocates nothing when none was added; a history replaced is scanned
// again.
func TestMaskScanReadsOnlyTheNewContents(t *testing.T) {
	var contents []*genai.Content
	for i := range 20 {
		fr := &genai.FunctionResponse{ID: fmt.Sprint(i), Name: "grep_search", Response: map[string]any{"output": strings.Repeat("match\n", 1000)}}
		contents = append(contents, &genai.Content{Role: "user", Parts: []*genai.Part{{FunctionResponse: fr}}})
	}
	contents = append(contents, &genai.Content{Role: "model", Parts: []*genai.Part{{Text: "latest"}}})
	var m masker
	m.scan(contents, 0)
	want := (len("grep_search") + len(`{"output":"`) + 6000 + 1000 + len(`"}`)) / 4
	if len(m.pending) != 20 || m.pending[0].tokens != want || m.pendingTokens != 20*want {
		t.Fatalf("scanned %d outputs, the first %d tokens, %d in all; want 20, %d each", len(m.pending), m.pending[0].tokens, m.pendingTokens, want)
	}
	allocs := testing.AllocsPerRun(10, func() { m.scan(contents, 0) })
	if allocs > 0 || len(m.pending) != 20 {
		t.Errorf("a scan with nothing new made %.0f allocations and holds %d outputs, want none and 20", allocs, len(m.pending))
	}
	m.scan(contents[:5], 1) // compressed: a new epoch
	if len(m.pending) != 4 || m.scanned != 4 {
		t.Errorf("after the history was replaced: %d outputs, %d contents scanned; want 4, 4", len(m.pending), m.scanned)
	}
}

// A tool output's tokens are counted from its compact JSON as
// JSON.stringify writes it, without keeping that text: the same count
// as of the text (HTML characters, escapes and characters beyond ASCII
// included), and a masked output told apart, allocating next to nothing
// whatever the output's size.
func TestResponseTokensCountTheJSONWithoutKeepingIt(t *testing.T) {
	big := strings.Repeat("línea <b>&</b> \"q\" \t\\ 日本\n", 1000)
	for _, response := range []map[string]any{
		{"output": "plain"},
		{"output": big},
		{"output": "a\u2028b", "error": nil, "n": 3.5},
		{"output": "<" + maskTag + ">\npreview\n</" + maskTag + ">"},
		{},
	} {
		fr := &genai.FunctionResponse{Name: "grep_search", Response: response}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(response); err != nil {
			t.Fatal(err)
		}
		text := strings.TrimSuffix(b.String(), "\n")
		want := (utf8.RuneCountInString(fr.Name) + utf8.RuneCountInString(text)) / 4
		if strings.Contains(text, "<"+maskTag) {
			want = -1
		}
		if got := responseTokens(fr); got != want {
			t.Errorf("%.40q: %d tokens, want %d", text, got, want)
		}
		if got, want := estimatePartTokens(&genai.Part{FunctionResponse: fr}), (utf8.RuneCountInString(fr.Name)+utf8.RuneCountInString(text))/4; got != want {
			t.Errorf("%.40q: estimated %d tokens, want %d", text, got, want)
		}
	}
	// What a count allocates beyond what encoding the output costs the
	// encoder itself (its buffer is pooled, and the race detector's pool
	// drops a quarter of what is put back): next to nothing, where a copy
	// of the text would be its size or more.
	fr := &genai.FunctionResponse{Name: "grep_search", Response: map[string]any{"output": big}}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	encode := func() {
		enc := json.NewEncoder(io.Discard)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(fr.Response)
	}
	bytesOf := func(f func()) uint64 {
		f()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 400 // the race detector's drops averaged out
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	encoding, counting := bytesOf(encode), bytesOf(func() { responseTokens(fr) })
	if counting > encoding+uint64(len(big)) {
		t.Errorf("counting a %d-byte output allocated %d bytes, encoding it %d", len(big), counting, encoding)
	}
}

// BenchmarkMaskPerRequest is the masking work of one request that adds a
// call and its output to a session of n earlier calls: flat in n, each
// content scanned once (before, each request walked the whole history).
func BenchmarkMaskPerRequest(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			history := make([]*genai.Content, 0, 2*(n+b.N)+1)
			turn := func(i int) {
				fr := &genai.FunctionResponse{ID: fmt.Sprint(i), Name: "grep_search", Response: map[string]any{"output": "match\n"}}
				history = append(history,
					&genai.Content{Role: "model", Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: fmt.Sprint(i), Name: "grep_search"}}}},
					&genai.Content{Role: "user", Parts: []*genai.Part{{FunctionResponse: fr}}})
			}
			for i := range n {
				turn(i)
			}
			m := masker{save: func(string, string, string) (string, error) { return "", nil }}
			m.mask(history, 0)
			b.ResetTimer()
			for i := range b.N {
				turn(n + i)
				m.mask(history, 0)
			}
		})
	}
}
