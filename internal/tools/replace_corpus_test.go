package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// corpusCase is one imperfect replace call from testdata/replace/corpus.json.
type corpusCase struct {
	Name     string         `json:"name"`
	Kind     string         `json:"kind"`
	FilePath string         `json:"file_path"`
	File     string         `json:"file"`
	Args     map[string]any `json:"args"`
	LLM      *llmEdit       `json:"llm"`
	Want     struct {
		Stage   string  `json:"stage"`
		Content *string `json:"content"`
		Error   string  `json:"error"`
	} `json:"want"`
}

func loadCorpus(t testing.TB) []corpusCase {
	t.Helper()
	data, err := os.ReadFile("testdata/replace/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Cases []corpusCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	return corpus.Cases
}

func stageNamed(t *testing.T, name string) matchStage {
	t.Helper()
	for s := stageExact; s <= stageLLM; s++ {
		if s.String() == name {
			return s
		}
	}
	t.Fatalf("unknown stage %q", name)
	return 0
}

// fakeUtility answers every utility call with answer (as JSON) and
// records the calls.
type fakeUtility struct {
	answer *llmEdit
	text   string // answered as is when answer is nil
	err    error
	block  bool // wait for the call's context to end

	mu    sync.Mutex
	calls []fakeUtilityCall
}

type fakeUtilityCall struct {
	alias  string
	prompt string
	config *genai.GenerateContentConfig
}

func (u *fakeUtility) GenerateContent(ctx context.Context, alias string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	u.mu.Lock()
	u.calls = append(u.calls, fakeUtilityCall{alias: alias, prompt: contents[0].Parts[0].Text, config: config})
	u.mu.Unlock()
	if u.block {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second):
			return nil, errors.New("the call was not cancelled within 5s")
		}
	}
	if u.err != nil {
		return nil, u.err
	}
	text := u.text
	if u.answer != nil {
		b, err := json.Marshal(u.answer)
		if err != nil {
			return nil, err
		}
		text = string(b)
	}
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(text, genai.RoleModel)}}}, nil
}

func (u *fakeUtility) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.calls)
}

// The corpus: every case run twice through the real tool, first with the
// LLM fix off (the deterministic stages alone must recover every case
// marked with a deterministic stage, and nothing else), then with a
// scripted LLM fix (which must recover the rest). A failure never proposes
// a change, and a success proposes exactly the expected file.
func TestReplaceCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 40 {
		t.Fatalf("corpus has %d cases, want at least 40", len(cases))
	}
	recovered := map[matchStage]int{}
	refused := 0
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			// The stage that decides, asked directly (the model is not
			// told about line endings).
			old, _ := tc.Args["old_string"].(string)
			newString, _ := tc.Args["new_string"].(string)
			loc, found := locate(tc.File, old, newString)
			if tc.Want.Stage != "" && stageNamed(t, tc.Want.Stage) != stageLLM && (!found || loc.stage != stageNamed(t, tc.Want.Stage)) {
				t.Errorf("decided by stage %s (found %v), want %s", loc.stage, found, tc.Want.Stage)
			}
			for _, withLLM := range []bool{false, true} {
				tw := newTestWorkspace(t, map[string]string{tc.FilePath: tc.File})
				p := &fakeProposer{decision: dialog.Decision{Outcome: dialog.Applied}}
				var opts Options
				var u *fakeUtility
				if withLLM {
					u = &fakeUtility{answer: tc.LLM, err: fmt.Errorf("unexpected LLM call")}
					if tc.LLM != nil {
						u.err = nil
					}
					opts.Utility = u
				}
				res := run(t, tw.proposing(p, ReplaceName, opts), tc.Args)

				wantStage := matchStage(-1)
				if tc.Want.Error == "" {
					wantStage = stageNamed(t, tc.Want.Stage)
				}
				recoverable := wantStage >= 0 && (withLLM || wantStage != stageLLM)
				mode := map[bool]string{false: "deterministic", true: "with LLM fix"}[withLLM]
				if !recoverable {
					if res.Error == "" || len(p.changes) != 0 {
						t.Fatalf("%s: want a failure and no change, got output %q error %q and %d changes", mode, res.Output, res.Error, len(p.changes))
					}
					want := tc.Want.Error
					if want == "" || (!withLLM && tc.LLM != nil) {
						want = "0 occurrences found for old_string"
					}
					wantContains(t, res.Error, want)
					if withLLM && u.count() > 1 {
						t.Errorf("%s: %d LLM calls", mode, u.count())
					}
					if withLLM && tc.LLM != nil {
						refused++
					}
					continue
				}
				if res.Error != "" {
					t.Fatalf("%s: %s", mode, res.Error)
				}
				c := p.only(t)
				if c.After != *tc.Want.Content {
					t.Fatalf("%s: result\n%q\nwant\n%q", mode, c.After, *tc.Want.Content)
				}
				if (located{stage: wantStage}).silent() {
					if strings.Contains(res.Output, "matched after") {
						t.Errorf("%s: %s match reported as %q", mode, wantStage, res.Output)
					}
				} else {
					wantContains(t, res.Output, wantStage.what())
				}
				if withLLM {
					if calls := u.count(); (wantStage == stageLLM) != (calls == 1) || calls > 1 {
						t.Errorf("%s: %d LLM calls for a %s match", mode, calls, wantStage)
					}
					recovered[wantStage]++
				}
			}
		})
	}
	if !t.Failed() {
		var b strings.Builder
		fmt.Fprintf(&b, "%d cases:\n", len(cases))
		for s := stageExact; s <= stageLLM; s++ {
			fmt.Fprintf(&b, "  %-13s %d\n", s, recovered[s])
		}
		fmt.Fprintf(&b, "  refused       %d (the LLM's answer rejected too)\n", refused)
		t.Log(b.String())
	}
}
