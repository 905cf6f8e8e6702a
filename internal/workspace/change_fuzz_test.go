package workspace

import (
	"testing"
)

// FuzzChangeBatch: a didChange's content changes mean each applied to the
// text the last one left (LSP); applying them as a batch, runs of
// descending ranges resolved against one line index and spliced at once,
// gives the same text, or the same refusal, on any bytes: invalid UTF-8
// in the text and in the changes too, where each byte of invalid UTF-8 is
// one character (one UTF-16 code unit, as a U+FFFD it decodes to is).
//
//	go test -run '^$' -fuzz FuzzChangeBatch ./internal/workspace/
func FuzzChangeBatch(f *testing.F) {
	for _, c := range []struct {
		text    string
		changes []byte
	}{
		{"l0 😀\r\nl1 世界\nl2\n\nl4 é", []byte{4, 3, 0, 5, 1, 'E', 3, 0, 0, 0, 4, 'n', 'e', 'w', '\n', 1, 3, 1, 1, 1, 'x'}},
		{"\xe4\xb8X\n", []byte{0, 2, 0, 3, 1, 0x96, 0, 1, 0, 1, 1, 'a'}},
		{"\xc3X", []byte{0, 1, 0, 2, 1, 0xa9, 0, 1, 0, 1, 0}},
		{"a\r\nb", []byte{1, 0, 0, 1, 1, '\n', 0, 1, 0, 1, 1, '\r'}},
		{"abc", []byte{255, 0, 0, 0, 2, 'x', 'y', 0, 1, 0, 1, 1, 'z'}},
		{"abc\n", []byte{0, 1, 0, 3, 0, 0, 3, 0, 2, 1, 'x'}},
	} {
		for enc := range uint8(3) {
			f.Add(c.text, c.changes, enc)
		}
	}
	f.Fuzz(func(t *testing.T, text string, data []byte, e uint8) {
		enc := Encoding(e % 3)
		changes := decodeChanges(data)
		want, wantErr := text, error(nil)
		for _, c := range changes {
			if want, wantErr = applyChanges(want, []ContentChange{c}, enc); wantErr != nil {
				break
			}
		}
		got, err := applyChanges(text, changes, enc)
		if (err == nil) != (wantErr == nil) || err == nil && got != want {
			t.Fatalf("text %q (enc %d), changes %s:\nbatched    %q, %v\nsequential %q, %v", text, enc, fmtChanges(changes), got, err, want, wantErr)
		}
	})
}

// decodeChanges reads changes from data, 5 bytes and a text each: start
// line and character, lines further to the end, end character, the
// text's length; a start line of 255 is a change of the whole text.
func decodeChanges(data []byte) []ContentChange {
	var out []ContentChange
	for len(data) >= 5 && len(out) < 16 {
		h := data[:5]
		n := min(int(h[4]%8), len(data)-5)
		text := string(data[5 : 5+n])
		data = data[5+n:]
		if h[0] == 255 {
			out = append(out, ContentChange{Text: text})
			continue
		}
		start := Position{Line: int(h[0] % 6), Character: int(h[1] % 12)}
		end := Position{Line: start.Line + int(h[2]%3), Character: int(h[3] % 12)}
		out = append(out, ContentChange{Range: &Range{Start: start, End: end}, Text: text})
	}
	return out
}

// A change joins the run before it only where it resolves as it would in
// the text the run leaves: after "\xe4\xb8" the "X" replaced by "\x96"
// makes 世 of three bytes that were three characters, so position 0:1 is
// after 世, not after "\xe4" (UTF-16), or moves back to its start
// (UTF-8); and a range reversed in the text as it was but not in the one
// the change before leaves is applied, not refused.
func TestChangeBatchAgreesWithOneByOne(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
		enc              Encoding
		changes          []ContentChange
	}{
		{"a character completed before the position (UTF-16)", "\xe4\xb8X\n", "世a\n", UTF16,
			[]ContentChange{{Range: rng(0, 2, 0, 3), Text: "\x96"}, {Range: rng(0, 1, 0, 1), Text: "a"}}},
		{"a character completed around the position (UTF-8)", "\xe4\xb8X\n", "a世\n", UTF8,
			[]ContentChange{{Range: rng(0, 2, 0, 3), Text: "\x96"}, {Range: rng(0, 1, 0, 1), Text: "a"}}},
		{"a range reversed only before the change", "abc\n", "ax\n", UTF16,
			[]ContentChange{{Range: rng(0, 1, 0, 3), Text: ""}, {Range: rng(0, 3, 0, 2), Text: "x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := applyChanges(tc.text, tc.changes, tc.enc)
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
