package builtin_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// realRoot is the project's root as Gemini CLI names it: its working
// directory, symlinks resolved.
func (h *harness) realRoot() string {
	h.t.Helper()
	root, err := filepath.EvalSymlinks(h.root)
	if err != nil {
		h.t.Fatal(err)
	}
	return root
}

// A conversation saved with /chat save is resumed by another process
// (fresh objects, the same home and project): the next prompt's request
// carries the earlier turns. The checkpoint is where Gemini CLI keeps it,
// in a project directory claimed as Gemini CLI claims one.
func TestChatSaveThenResumeInANewProcess(t *testing.T) {
	h := newHarness(t,
		geminitest.TextTurn("Hello, Ada."),
		geminitest.TextTurn("You are Ada."),
	)
	first := h.conversation()
	if got := h.answer(first, "/chat save empty"); got != "No conversation found to save." {
		t.Errorf("/chat save of nothing said %q", got)
	}
	h.prompt(first, "my name is Ada")
	if got := h.answer(first, "/chat save ada"); got != "Conversation checkpoint saved with tag: ada." {
		t.Errorf("/chat save said %q", got)
	}
	slug := strings.ToLower(filepath.Base(h.realRoot()))
	dir := filepath.Join(h.home, ".gemini", "tmp", slug)
	if owner, err := os.ReadFile(filepath.Join(dir, ".project_root")); err != nil || string(owner) != h.realRoot() {
		t.Errorf("the project directory's marker = %q, %v", owner, err)
	}
	var saved struct {
		History []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"history"`
		AuthType string `json:"authType"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "checkpoint-ada.json"))
	if err != nil || json.Unmarshal(data, &saved) != nil || !strings.HasPrefix(string(data), "{\n  \"history\": [\n    {\n") {
		t.Fatalf("checkpoint file: %v\n%s", err, data)
	}
	if saved.AuthType != "gemini-api-key" || len(saved.History) != 2 || saved.History[0].Parts[0].Text != "my name is Ada" || saved.History[1].Role != "model" {
		t.Errorf("checkpoint = %+v", saved)
	}
	if err := h.fails(first, "/chat save ada"); !strings.Contains(err.Error(), `a checkpoint tagged "ada" already exists`) {
		t.Errorf("saving over a checkpoint: %v", err)
	}

	second := h.conversation()
	if second.Session.ID() == first.Session.ID() {
		t.Fatal("the second process has the first's session")
	}
	if got := h.answer(second, "/chat list"); !strings.Contains(got, "- `ada` (saved ") {
		t.Errorf("/chat list said %q", got)
	}
	if got := h.answer(second, "/chat resume ada"); !strings.HasPrefix(got, "Resumed the conversation saved as ada (1 prompt(s))") {
		t.Errorf("/chat resume said %q", got)
	}
	h.prompt(second, "who am I?")
	want := []string{"user:my name is Ada", "model:Hello, Ada.", "user:who am I?"}
	if got := h.lastRequest(); !slices.Equal(got, want) {
		t.Errorf("the request after /chat resume = %q, want %q", got, want)
	}

	if got := h.answer(second, "/chat delete ada"); got != `Conversation checkpoint "ada" has been deleted.` {
		t.Errorf("/chat delete said %q", got)
	}
	if got := h.answer(second, "/chat list"); !strings.HasPrefix(got, "No saved conversation checkpoints found") {
		t.Errorf("/chat list after delete said %q", got)
	}
}

// geminiCLICheckpoint is a checkpoint as Gemini CLI's logger.ts writes
// it (JSON.stringify(checkpoint, null, 2)): its history starts with the
// environment context Gemini CLI gives every chat, and a call and its
// response are in it.
const geminiCLICheckpoint = `{
  "history": [
    {
      "role": "user",
      "parts": [
        {
          "text": "This is the Gemini CLI. We are setting up the context for our chat."
        }
      ]
    },
    {
      "role": "user",
      "parts": [
        {
          "text": "list the files"
        }
      ]
    },
    {
      "role": "model",
      "parts": [
        {
          "functionCall": {
            "id": "call-1",
            "name": "list_directory",
            "args": {
              "dir_path": "."
            }
          },
          "thoughtSignature": "c2lnbmF0dXJl"
        }
      ]
    },
    {
      "role": "user",
      "parts": [
        {
          "functionResponse": {
            "id": "call-1",
            "name": "list_directory",
            "response": {
              "output": "main.go"
            }
          }
        }
      ]
    },
    {
      "role": "model",
      "parts": [
        {
          "text": "There is main.go."
        }
      ]
    }
  ],
  "authType": "gemini-api-key"
}`

// A checkpoint Gemini CLI saved, in the directory its project registry
// names, is listed and resumed unchanged: the tag decoded as Gemini CLI
// decodes it, the call and its signature intact.
func TestChatResumesAGeminiCLICheckpoint(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("It is Go."))
	registry, _ := json.Marshal(map[string]any{"projects": map[string]string{h.realRoot(): "my-project"}})
	h.write("~/.gemini/projects.json", string(registry))
	// No marker: the registry alone names the directory (Gemini CLI
	// writes the marker back when it finds it missing).
	h.write("~/.gemini/tmp/my-project/checkpoint-before%20lunch.json", geminiCLICheckpoint)
	env := h.conversation()
	if got := h.answer(env, "/chat list"); !strings.Contains(got, "- `before lunch` (saved ") {
		t.Errorf("/chat list said %q", got)
	}
	if got := h.answer(env, "/chat resume before lunch"); !strings.HasPrefix(got, "Resumed the conversation saved as before lunch (2 prompt(s))") {
		t.Errorf("/chat resume said %q", got)
	}
	h.prompt(env, "what language?")
	req := h.model.Requests()[0]
	if len(req.Contents) != 6 {
		t.Fatalf("the request after resume has %d contents", len(req.Contents))
	}
	call := req.Contents[2].Parts[0]
	if call.FunctionCall == nil || call.FunctionCall.Name != "list_directory" || string(call.ThoughtSignature) != "signature" ||
		req.Contents[3].Parts[0].FunctionResponse.Response["output"] != "main.go" || req.Contents[5].Parts[0].Text != "what language?" {
		t.Errorf("the resumed history was not sent as saved: %q", h.lastRequest())
	}
}

// An older Gemini CLI named the directory by the root's SHA-256 and wrote
// the history alone, as an array: such a checkpoint resumes too.
func TestChatResumesALegacyCheckpoint(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("ok"))
	sum := sha256.Sum256([]byte(h.realRoot()))
	h.write("~/.gemini/tmp/"+hex.EncodeToString(sum[:])+"/checkpoint-old.json",
		`[{"role": "user", "parts": [{"text": "old prompt"}]}, {"role": "model", "parts": [{"text": "old answer"}]}]`)
	env := h.conversation()
	h.answer(env, "/chat resume old")
	h.prompt(env, "new prompt")
	if got, want := h.lastRequest(), []string{"user:old prompt", "model:old answer", "user:new prompt"}; !slices.Equal(got, want) {
		t.Errorf("the request after resume = %q, want %q", got, want)
	}
}

// Bad tags, missing checkpoints and files that are not checkpoints are
// errors that say so, and change nothing.
func TestChatRefusals(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("kept"), geminitest.TextTurn("still"))
	env := h.conversation()
	h.prompt(env, "keep me")
	for line, want := range map[string]string{
		"/chat save":                             "missing tag; usage: /chat save <tag>",
		"/chat resume":                           "missing tag; usage: /chat resume <tag>",
		"/chat delete":                           "missing tag; usage: /chat delete <tag>",
		"/chat save ../../escape":                `invalid tag "../../escape": a tag cannot contain / or \; usage: /chat save <tag>`,
		`/chat resume a\b`:                       `invalid tag "a\\b": a tag cannot contain / or \; usage: /chat resume <tag>`,
		"/chat save " + strings.Repeat("x", 201): "invalid tag: at most 200 characters once encoded; usage: /chat save <tag>",
		"/chat resume nothing":                   `no saved checkpoint found with tag "nothing" (/chat list shows them)`,
		"/chat delete nothing":                   `no checkpoint found with tag "nothing" (/chat list shows them)`,
		"/chat publish":                          `unknown /chat subcommand "publish"; usage: /chat list | save <tag> | resume <tag> | delete <tag> | share [file]`,
	} {
		if err := h.fails(env, line); err.Error() != want {
			t.Errorf("%s: %v\nwant %s", line, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(h.home, ".gemini", "escape.json")); !os.IsNotExist(err) {
		t.Errorf("a tag with a separator wrote outside the project directory: %v", err)
	}

	h.answer(env, "/chat save mine") // claims the project directory
	dir := filepath.Join(h.home, ".gemini", "tmp", strings.ToLower(filepath.Base(h.realRoot())))
	h.write(filepath.Join(dir, "checkpoint-other.json"), strings.Replace(geminiCLICheckpoint, `"authType": "gemini-api-key"`, `"authType": "oauth-personal"`, 1))
	h.write(filepath.Join(dir, "checkpoint-garbage.json"), `{"messages": []}`)
	huge := h.write(filepath.Join(dir, "checkpoint-huge.json"), "[")
	if err := os.Truncate(huge, 65<<20); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"/chat resume other":   "cannot resume the conversation: it was saved with a different authentication method (oauth-personal) than the current one (gemini-api-key)",
		"/chat resume garbage": "it is not a Gemini CLI checkpoint: it has no history",
		"/chat resume huge":    "checkpoint-huge.json: ",
	} {
		if err := h.fails(env, line); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant it to say %s", line, err, want)
		}
	}
	h.prompt(env, "still here?")
	if got := h.lastRequest(); len(got) != 3 || got[0] != "user:keep me" {
		t.Errorf("the history after refused commands: %q", got)
	}
}
