package sessionstore

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// A session file holding a record of a format this gemini-ls does not
// know, one a newer gemini-ls wrote, is not resumed as if the record
// were not there, nor called corrupt: Load says a newer gemini-ls wrote
// it, which format it is in and which this one reads, wherever the
// record is (its last line included, which a torn write would be
// ignored as), be it a prompt's record or a message's mark. The file is
// left as it is.
func TestANewerFormatIsRefusedSayingSo(t *testing.T) {
	newer := strconv.Itoa(sharedVersion + 1)
	for _, tc := range []struct {
		name  string
		lines func(id string) []string
	}{
		{name: "a prompt's record, last", lines: func(id string) []string {
			return []string{`{"sessionId":"` + id + `","projectHash":"h","$geminiLs":{"v":` + newer + `,"step":"end","exchange":{"promptRef":{"id":"m9"}}}}`}
		}},
		{name: "a prompt's record, then more", lines: func(id string) []string {
			return []string{
				`{"sessionId":"` + id + `","projectHash":"h","$geminiLs":{"v":` + newer + `,"step":"begin"}}`,
				`{"id":"m9","type":"gemini","content":[{"text":"hi"}]}`,
			}
		}},
		{name: "a message's mark", lines: func(id string) []string {
			return []string{`{"id":"m9","type":"user","content":[{"text":"hi"}],"$geminiLs":{"v":` + newer + `}}`}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, root := sharedStore(t)
			m := sharedMeta(root, NewID(), 1)
			mustAppend(t, s, Turn{Meta: m, History: sharedHistory(1), Exchange: &Exchange{Prompt: "p", Answer: "a"}})
			path := sessionPath(t, s, m)
			appendRaw(t, path, []byte(strings.Join(tc.lines(m.ID), "\n")+"\n"))
			before, _ := os.ReadFile(path)

			_, err := s.Load(context.Background(), m.ID)
			var nf *NewerFormatError
			if !errors.As(err, &nf) || !errors.Is(err, ErrNewerFormat) || errors.Is(err, ErrCorrupt) || nf.Version != sharedVersion+1 {
				t.Fatalf("Load: %v, want a *NewerFormatError of format %s", err, newer)
			}
			for _, want := range []string{"written by a newer gemini-ls", "session format " + newer, "reads session formats " + strconv.Itoa(oldSharedVersion) + " to " + strconv.Itoa(sharedVersion), "update gemini-ls", path} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Load: %q, want it to say %q", err, want)
				}
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("the file changed")
			}
		})
	}
}

// The records this gemini-ls writes carry its format's version, and a
// prompt in the shape that version brought (its text left to its
// message, promptOf) reads back whole; one whose message is not in the
// file never reads as an empty prompt, but as a prompt whose text is
// missing, saying so.
func TestPromptsOfThisFormatNeverReadEmpty(t *testing.T) {
	s, root := sharedStore(t)
	m := sharedMeta(root, NewID(), 1)
	ctx := context.Background()
	model := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Read."}}}
	if err := s.Append(ctx, Turn{Meta: m, History: []*genai.Content{userText("read a.txt"), model}, Exchange: &Exchange{Prompt: "read a.txt", Answer: "Read."}}); err != nil {
		t.Fatal(err)
	}
	path := sessionPath(t, s, m)
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"$geminiLs":{"v":`+strconv.Itoa(sharedVersion)+`,`) || !strings.Contains(string(data), `"promptOf":`) {
		t.Fatalf("the prompt's line is not of format %d with its prompt left to its message:\n%s", sharedVersion, data)
	}
	if snap := mustLoad(t, s, m.ID); len(snap.Exchanges) != 1 || snap.Exchanges[0].Prompt != "read a.txt" {
		t.Fatalf("exchanges = %+v", snap.Exchanges)
	}
	// The message the prompt's text is in, gone (a hand-edited file).
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"promptOf":`) {
			lines[i] = strings.Replace(l, `"promptOf":"`, `"promptOf":"gone-`, 1)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := mustLoad(t, s, m.ID)
	if len(snap.Exchanges) != 1 || !strings.Contains(snap.Exchanges[0].Prompt, "not in the session file") {
		t.Errorf("a prompt whose message is gone reads as %+v", snap.Exchanges)
	}
}
