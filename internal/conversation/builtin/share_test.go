package builtin_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// sharedMarkdown is the conversation of TestChatShare as Gemini CLI
// 0.61's serializeHistoryToMarkdown writes it.
const sharedMarkdown = "## USER \U0001F9D1\u200D\U0001F4BB\n\nwhat is in a.txt?\n\n---\n\n" +
	"## MODEL ✨\n\n**Tool Command**:\n```json\n{\n  \"id\": \"call_1\",\n  \"name\": \"read_file\",\n  \"args\": {\n    \"file_path\": \"a.txt\"\n  }\n}\n```\n\n---\n\n" +
	"## USER \U0001F9D1\u200D\U0001F4BB\n\n**Tool Response**:\n```json\n{\n  \"id\": \"call_1\",\n  \"name\": \"read_file\",\n  \"response\": {\n    \"output\": \"hi\\n\"\n  }\n}\n```\n\n---\n\n" +
	"## MODEL ✨\n\nIt says <hi> & \u2028 é."

// sharedJSON is the same conversation as 0.61's JSON.stringify(history,
// null, 2) writes it: role before parts, a call's id, name and args.
const sharedJSON = `[
  {
    "role": "user",
    "parts": [
      {
        "text": "what is in a.txt?"
      }
    ]
  },
  {
    "role": "model",
    "parts": [
      {
        "functionCall": {
          "id": "call_1",
          "name": "read_file",
          "args": {
            "file_path": "a.txt"
          }
        }
      }
    ]
  },
  {
    "role": "user",
    "parts": [
      {
        "functionResponse": {
          "id": "call_1",
          "name": "read_file",
          "response": {
            "output": "hi\n"
          }
        }
      }
    ]
  },
  {
    "role": "model",
    "parts": [
      {
        "text": "It says <hi> & ` + "\u2028" + ` é."
      }
    ]
  }
]`

// /help lists /chat share, which (as /resume share) writes the
// conversation as Gemini CLI 0.61 does, Markdown or JSON by the file's
// extension, the file's directory made; without a file, to
// gemini-conversation-<ms>.json in the workspace; with nothing said
// yet, or another extension, in 0.61's words. No model request.
func TestChatShare(t *testing.T) {
	h := newHarness(t,
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"file_path": "a.txt"})),
		geminitest.TextTurn("It says <hi> & \u2028 é."))
	h.write("a.txt", "hi\n")
	env := h.conversation()
	if help := h.answer(env, "/help"); !strings.Contains(help, "\n  - `share [file]` — Share the current conversation to a markdown or json file\n") {
		t.Errorf("/help does not list /chat share:\n%s", help)
	}
	if got := h.answer(env, "/chat share"); got != "No conversation found to share." {
		t.Errorf("/chat share of nothing said %q", got)
	}
	for _, name := range []string{"notes.txt", ".md", "conv.MD", "dir/"} {
		if err := h.fails(env, "/chat share "+name); err.Error() != "Invalid file format. Only .md and .json are supported." {
			t.Errorf("/chat share %s: %v", name, err)
		}
	}
	h.prompt(env, "what is in a.txt?")

	md := filepath.Join(h.root, "out", "conv.md")
	if got := h.answer(env, "/chat share out/conv.md"); got != "Conversation shared to "+md {
		t.Errorf("/chat share out/conv.md said %q", got)
	}
	if data, err := os.ReadFile(md); err != nil || string(data) != sharedMarkdown {
		t.Errorf("the Markdown (%v):\n%q\nwant\n%q", err, data, sharedMarkdown)
	}
	if got := h.answer(env, "/resume share ..json"); got != "Conversation shared to "+filepath.Join(h.root, "..json") {
		t.Errorf("/resume share ..json said %q", got)
	}
	if data, err := os.ReadFile(filepath.Join(h.root, "..json")); err != nil || string(data) != sharedJSON {
		t.Errorf("the JSON (%v):\n%s\nwant\n%s", err, data, sharedJSON)
	}

	got := h.answer(env, "/chat share")
	name := regexp.MustCompile(`^Conversation shared to (.*[/\\]gemini-conversation-\d{13}\.json)$`).FindStringSubmatch(got)
	if name == nil || filepath.Dir(name[1]) != h.root {
		t.Fatalf("/chat share without a file said %q", got)
	}
	if data, err := os.ReadFile(name[1]); err != nil || string(data) != sharedJSON {
		t.Errorf("%s: %v\n%s", name[1], err, data)
	}
}

// Like /export-session, /chat share writes only a file: a symbolic
// link is refused, its target left alone.
func TestChatShareWritesOnlyAFile(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("Hi."))
	env := h.conversation()
	h.prompt(env, "hello")
	target := h.write("target.txt", "keep me")
	platformtest.Symlink(t, target, filepath.Join(h.root, "link.md"))
	err := h.fails(env, "/chat share link.md")
	if !strings.HasPrefix(err.Error(), "Error sharing conversation: ") || !strings.HasSuffix(err.Error(), "link.md is a symbolic link, not a file: nothing was written") {
		t.Errorf("/chat share link.md: %v", err)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "keep me" {
		t.Errorf("the link's target: %q, %v", data, err)
	}
}
