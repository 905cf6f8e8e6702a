package action

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/github"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// perms answers the permission API from a map; asked records who was
// asked about.
type perms struct {
	of    map[string]github.Permission
	asked []string
}

func (p *perms) permission(_ context.Context, user string) (github.Permission, error) {
	p.asked = append(p.asked, user)
	if v, ok := p.of[user]; ok {
		return v, nil
	}
	return "none", nil
}

func payload(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func issue(action, sender string) map[string]any {
	return map[string]any{"action": action, "sender": map[string]any{"login": sender},
		"issue": map[string]any{"number": 12, "title": "Crash on empty input!", "body": "Steps: run it."}}
}

func commentBy(association, login, body string) map[string]any {
	ev := issue("created", login)
	ev["comment"] = map[string]any{"body": body, "author_association": association, "user": map[string]any{"login": login}}
	return ev
}

// Each event gives its task, or a Skip saying why nothing runs; write
// access is asked of GitHub for issues and comments, after the
// association when the event gives one.
func TestDecide(t *testing.T) {
	ctx := context.Background()
	p := &perms{of: map[string]github.Permission{"dev": "write", "boss": "admin", "triager": "read"}}
	for _, c := range []struct {
		name, event string
		payload     any
		branch      string // of the task; "" when skipped
		why         string // in the skip
	}{
		{"dispatch", "workflow_dispatch", map[string]any{"inputs": map[string]any{"prompt": "Add a CHANGELOG\nwith the last release", "base": "dev", "model": "gemini-2.5-flash"}}, "gemini/add-a-changelog", ""},
		{"dispatch from the editor, its task named", "workflow_dispatch", map[string]any{"inputs": map[string]any{"prompt": "Add a CHANGELOG", "task": "add-a-changelog-3f9a"}}, "gemini/add-a-changelog-3f9a", ""},
		{"dispatch with a task no slug could be", "workflow_dispatch", map[string]any{"inputs": map[string]any{"prompt": "Add a CHANGELOG", "task": "../../main"}}, "gemini/add-a-changelog", ""},
		{"dispatch without prompt", "workflow_dispatch", map[string]any{"inputs": map[string]any{"prompt": "  "}}, "", "without a prompt"},
		{"labelled by a writer", "issues", issue("labeled", "dev"), "gemini/issue-12-crash-on-empty-input", ""},
		{"assigned by an admin", "issues", issue("assigned", "boss"), "gemini/issue-12-crash-on-empty-input", ""},
		{"labelled by a triager", "issues", issue("labeled", "triager"), "", "their permission on the repository is read"},
		{"issue opened", "issues", issue("opened", "dev"), "", "only an issue labelled or assigned"},
		{"comment by a writer", "issue_comment", commentBy("MEMBER", "dev", "@gemini-ls fix it"), "gemini/issue-12-crash-on-empty-input", ""},
		{"comment by a contributor", "issue_comment", commentBy("CONTRIBUTOR", "dev", "@gemini-ls fix it"), "", "association with the repository is CONTRIBUTOR"},
		{"comment by a collaborator who may only read", "issue_comment", commentBy("COLLABORATOR", "triager", "@gemini-ls fix it"), "", "permission on the repository is read"},
		{"comment without the mention", "issue_comment", commentBy("OWNER", "boss", "@gemini-lsx fix it"), "", "does not mention @gemini-ls"},
		{"comment with it in an address", "issue_comment", commentBy("OWNER", "boss", "mail me@gemini-ls.dev"), "", "does not mention"},
		{"another event", "push", map[string]any{}, "", "not push"},
	} {
		t.Run(c.name, func(t *testing.T) {
			task, err := decide(ctx, c.event, payload(t, c.payload), p.permission)
			var skip *Skip
			switch {
			case c.why != "":
				if !errors.As(err, &skip) || !strings.Contains(skip.Why, c.why) {
					t.Fatalf("got %+v, %v; want a skip saying %q", task, err, c.why)
				}
			case err != nil:
				t.Fatal(err)
			case task.Branch != c.branch:
				t.Errorf("branch %q, want %q", task.Branch, c.branch)
			}
		})
	}
	// A contributor's comment is refused before GitHub is asked.
	p.asked = nil
	if _, err := decide(ctx, "issue_comment", payload(t, commentBy("NONE", "x", "@gemini-ls hi")), p.permission); err == nil || len(p.asked) != 0 {
		t.Errorf("err %v, asked %q", err, p.asked)
	}
	task, err := decide(ctx, "issue_comment", payload(t, commentBy("OWNER", "boss", "Please, @gemini-ls: add a test.")), p.permission)
	if err != nil || task.Issue != 12 || !strings.Contains(task.Prompt, "Crash on empty input!") || !strings.Contains(task.Prompt, "Request from @boss in a comment:\n\nPlease, @gemini-ls: add a test.") {
		t.Errorf("task %+v err %v", task, err)
	}
	if _, err := decide(ctx, "issues", []byte("{not json"), p.permission); err == nil || errors.As(err, new(*Skip)) {
		t.Errorf("a broken payload: %v, want an error, not a skip", err)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the login page!":                        "fix-the-login-page",
		"  --Ünïcode só  ":                           "n-code-s",
		"日本語":                                        "task",
		"a/b..c~d^e:f?g*h[i@{j":                      "a-b-c-d-e-f-g-h-i-j",
		strings.Repeat("abcdefghij ", 10):            "abcdefghij-abcdefghij-abcdefghij-abcdefg",
		"refs/heads/../../etc/passwd and more words": "refs-heads-etc-passwd-and-more-words",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
		if len(slug(in)) > maxSlug {
			t.Errorf("slug(%q) is longer than %d", in, maxSlug)
		}
	}
}

// The policy loads without a problem, denies writes to the workflows by
// any case and either slash, and lets other writes and other .github
// files be.
func TestPolicyDeniesWorkflowWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(path, []byte(denyWorkflows()), 0o600); err != nil {
		t.Fatal(err)
	}
	e := policy.Load([]policy.Source{{Tier: policy.TierAdmin, Path: path}}, false)
	if p := e.Problems(); len(p) != 0 {
		t.Fatalf("problems loading the policy: %+v", p)
	}
	for file, denied := range map[string]bool{
		".github/workflows/ci.yml":           true,
		"/w/repo/.GitHub/Workflows/x.yaml":   true,
		`C:\w\repo\.github\workflows\ci.yml`: true,
		".github/workflows":                  true,
		".github/dependabot.yml":             false,
		"src/workflows/x.go":                 false,
	} {
		for _, tool := range []string{tools.WriteFileName, tools.ReplaceName} {
			for _, mode := range []policy.Mode{policy.ModeAutoEdit, policy.ModeYolo} {
				v := e.Check(policy.Call{Name: tool, Mode: mode, Args: map[string]any{"file_path": file, "content": "x"}})
				if got := v.Decision == policy.Deny; got != denied {
					t.Errorf("%s %s in %s: decision %q, want denied %v", tool, file, mode, v.Decision, denied)
				}
			}
		}
	}
	v := e.Check(policy.Call{Name: tools.ShellName, Mode: policy.ModeYolo, Args: map[string]any{"command": "echo x > .github/workflows/ci.yml"}})
	if v.Decision != policy.Deny {
		t.Errorf("a shell command writing a workflow: %q, want denied", v.Decision)
	}
}

// A secret is found in a file across the blocks it is read in, and in a
// link's target; a file without one is not flagged.
func TestHoldsSecret(t *testing.T) {
	dir := t.TempDir()
	const secret = "s3cr3t-value-xyz"
	split := strings.Repeat("a", 1<<20-5) + secret + "tail"
	for name, content := range map[string]string{"split": split, "clean": strings.Repeat("b", 3<<20), "small": "x" + secret} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/tmp/"+secret, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"split": true, "clean": false, "small": true, "link": true} {
		got, err := holdsSecret(filepath.Join(dir, name), []string{"other", secret})
		if err != nil || got != want {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
}

// The log writer redacts a secret split over two writes.
func TestRedactingSplitWrites(t *testing.T) {
	var out bytes.Buffer
	r := &redacting{w: &out, env: Env{Secrets: []string{"topsecret"}}}
	r.Write([]byte("the key is top"))
	r.Write([]byte("secret, and again topsecret\nlast top"))
	r.Write([]byte("secret"))
	r.Flush()
	if got, want := out.String(), "the key is ***, and again ***\nlast ***"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// The commit's subject is the agent's last summary line, else the
// task's title.
func TestCommitMessage(t *testing.T) {
	task := Task{Title: "Fix the crash", Issue: 3}
	for response, want := range map[string]string{
		"Done.\nSummary: Guard against empty input": "Guard against empty input",
		"**Summary:** Use a map\n":                  "Use a map",
		"Summary: first\nmore\nsummary: second":     "second",
		"No summary here.":                          "Fix the crash",
	} {
		msg := report{task: task, res: AgentResult{Response: response}}.commitMessage()
		if subject, _, _ := strings.Cut(msg, "\n"); subject != want {
			t.Errorf("%q: subject %q, want %q", response, subject, want)
		}
		if !strings.Contains(msg, "Task: Fix the crash (#3)") {
			t.Errorf("%q: message %q lacks the task", response, msg)
		}
	}
}
