package agent

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/protected"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

// protectRules allow every edit, as a user's broad rule might, and deny
// one path.
const protectRules = `
[[rule]]
toolName = ["write_file", "replace"]
decision = "allow"
priority = 100

[[rule]]
toolName = "write_file"
argsPattern = "denied-here"
decision = "deny"
priority = 200
`

// An edit of a protected file asks a person, offering no "always",
// whatever would have let it through unasked (auto_edit, a rule's allow,
// tools.allowed, an earlier "always allow"); yolo runs it; a refusal
// (plan mode, a rule's deny) stands; the session's plan file is its own;
// headless, it is refused, saying why. An ordinary file is the control.
func TestProtectedEditsAlwaysAsk(t *testing.T) {
	root := t.TempDir()
	plans := filepath.Join(root, ".gemini", "tmp", "s1", "plans")
	settings := filepath.Join(root, ".gemini", "settings.json")
	policyFile := filepath.Join(root, ".gemini", "policies", "x.toml")
	ordinary := filepath.Join(root, "a.txt")
	headlessWhy := "Writing " + settings + " needs a person's approval in every approval mode but yolo, because " + filepath.Join(root, ".gemini") + " holds gemini-ls's and Gemini CLI's configuration"
	for _, tc := range []struct {
		name        string
		mode        dialog.ApprovalMode
		rules       string // "" for no policy engine
		headless    bool
		allowedKeys []string
		trusted     []string
		always      []string
		path        string
		want        verdict
		wantRefusal string // a prefix, for long refusals
	}{
		{name: "auto_edit: an ordinary file runs", mode: dialog.ApprovalAutoEdit, path: ordinary, want: verdict{}},
		{name: "auto_edit: settings ask", mode: dialog.ApprovalAutoEdit, path: settings, want: verdict{ask: true}},
		{name: "auto_edit: a policy file asks", mode: dialog.ApprovalAutoEdit, path: policyFile, want: verdict{ask: true}},
		{name: "auto_edit without a policy engine asks", mode: dialog.ApprovalAutoEdit, rules: "-", path: settings, want: verdict{ask: true}},
		{name: "default: no always offered", mode: dialog.ApprovalDefault, path: settings, want: verdict{ask: true}},
		{name: "default: an ordinary file offers always", mode: dialog.ApprovalDefault, path: ordinary, want: verdict{ask: true, always: true}},
		{name: "always allow of edits does not cover it", mode: dialog.ApprovalDefault, always: []string{tools.EditKey}, path: settings, want: verdict{ask: true}},
		{name: "tools.allowed's edit key does not cover it", mode: dialog.ApprovalDefault, allowedKeys: []string{tools.EditKey}, path: settings, want: verdict{ask: true}},
		{name: "tools.allowed's write_file does not cover it", mode: dialog.ApprovalDefault, trusted: []string{tools.WriteFileName}, path: settings, want: verdict{ask: true}},
		{name: "a rule's allow does not cover it", mode: dialog.ApprovalDefault, rules: protectRules, path: policyFile, want: verdict{ask: true}},
		{name: "a rule's allow covers an ordinary file", mode: dialog.ApprovalDefault, rules: protectRules, path: ordinary, want: verdict{}},
		{name: "a rule's deny stands", mode: dialog.ApprovalAutoEdit, rules: protectRules, path: filepath.Join(root, ".gemini", "denied-here"), want: verdict{refusal: "Tool execution denied by policy."}},
		{name: "yolo runs it", mode: dialog.ApprovalYolo, path: settings, want: verdict{}},
		{name: "plan mode refuses it", mode: dialog.ApprovalPlan, path: settings, want: verdict{refusal: planEditRefusal}},
		{name: "plan mode's plan file under ~/.gemini runs", mode: dialog.ApprovalPlan, path: filepath.Join(plans, "plan.md"), want: verdict{}},
		{name: "headless auto_edit refuses it, saying why", mode: dialog.ApprovalAutoEdit, headless: true, path: settings, wantRefusal: headlessWhy},
		{name: "headless default refuses it, saying why", mode: dialog.ApprovalDefault, headless: true, path: settings, wantRefusal: headlessWhy},
		{name: "headless auto_edit: an ordinary file runs", mode: dialog.ApprovalAutoEdit, headless: true, path: ordinary, want: verdict{}},
		{name: "headless yolo runs it", mode: dialog.ApprovalYolo, headless: true, path: settings, want: verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApprovals(func() dialog.ApprovalMode { return tc.mode }, func() string { return plans }, builtinAnnotations, tc.allowedKeys, tc.trusted)
			switch tc.rules {
			case "-":
			case "":
				a.policy = policy.Load(nil, !tc.headless)
			default:
				a.policy = userPolicy(t, !tc.headless, tc.rules)
			}
			a.allowAlways(tc.always...)
			call := policy.Call{Name: tools.WriteFileName, Args: map[string]any{"file_path": tc.path, "content": "x"}}
			got := a.decide(call, tools.WriteFileName, tools.EditConfirmation(tc.path))
			if tc.wantRefusal != "" {
				if !strings.HasPrefix(got.refusal, tc.wantRefusal) || !strings.HasSuffix(got.refusal, "so the file was not changed. Ask the user to make this change themselves.") || got.ask {
					t.Errorf("decide = %+v, want a refusal starting %q", got, tc.wantRefusal)
				}
				return
			}
			if tc.want.ask && !tc.want.always {
				// A protected file's: it says why.
				if !strings.Contains(got.protected, string(filepath.Separator)+".gemini holds gemini-ls's") {
					t.Errorf("decide = %+v, want it to say why it asks", got)
				}
				got.protected = ""
			}
			if got != tc.want {
				t.Errorf("decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The set's paths count as its names do: the system settings, set by
// setup.
func TestProtectedPathsOfTheConfig(t *testing.T) {
	system := filepath.Join(t.TempDir(), "gemini-cli")
	a := newApprovals(func() dialog.ApprovalMode { return dialog.ApprovalAutoEdit }, noPlans, builtinAnnotations, nil, nil)
	a.protected = protected.New(protected.Path{Path: system, What: "the system's settings and policies"})
	path := filepath.Join(system, "policies", "x.toml")
	if got := a.decide(policy.Call{Name: tools.WriteFileName}, tools.WriteFileName, tools.EditConfirmation(path)); got != (verdict{ask: true, protected: system + " holds the system's settings and policies"}) {
		t.Errorf("decide(%s) = %+v, want it asked", path, got)
	}
}

// Yolo with ~/.gemini (or ~) included (issue 94): the model writing a
// hook into ~/.gemini/settings.json, or a policy beside it, would be
// obeyed by every later session in every folder; so a protected file in
// a directory included from outside the project asks even in yolo, and
// is refused headless, saying why. The project's own protected files and
// every ordinary file, included or not, keep yolo's rule: unasked.
func TestYoloAsksAboutProtectedFilesInIncludedDirectories(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	included := func(path string) bool { return strings.HasPrefix(path, home+string(filepath.Separator)) }
	userSettings := filepath.Join(home, ".gemini", "settings.json")
	for _, tc := range []struct {
		name     string
		headless bool
		path     string
		want     verdict
		refusal  string
	}{
		{name: "the user's settings ask", path: userSettings, want: verdict{ask: true}},
		{name: "the user's policies ask", path: filepath.Join(home, ".gemini", "policies", "x.toml"), want: verdict{ask: true}},
		{name: "the user's .bashrc asks", path: filepath.Join(home, ".bashrc"), want: verdict{ask: true}},
		{name: "headless refuses the user's settings", headless: true, path: userSettings,
			refusal: "Writing " + userSettings + " needs a person's approval in every approval mode, yolo too, because " + filepath.Join(home, ".gemini") + " holds gemini-ls's and Gemini CLI's configuration"},
		{name: "an ordinary included file runs", path: filepath.Join(home, "notes.txt"), want: verdict{}},
		{name: "headless: an ordinary included file runs", headless: true, path: filepath.Join(home, "notes.txt"), want: verdict{}},
		{name: "the project's own settings run", path: filepath.Join(project, ".gemini", "settings.json"), want: verdict{}},
		{name: "headless: the project's own settings run", headless: true, path: filepath.Join(project, ".gemini", "settings.json"), want: verdict{}},
		{name: "an ordinary project file runs", path: filepath.Join(project, "a.txt"), want: verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newApprovals(func() dialog.ApprovalMode { return dialog.ApprovalYolo }, noPlans, builtinAnnotations, nil, nil)
			a.policy = policy.Load(nil, !tc.headless)
			a.included = included
			got := a.decide(policy.Call{Name: tools.WriteFileName, Args: map[string]any{"file_path": tc.path, "content": "x"}},
				tools.WriteFileName, tools.EditConfirmation(tc.path))
			if tc.refusal != "" {
				if !strings.HasPrefix(got.refusal, tc.refusal) || !strings.Contains(got.refusal, yoloReason+"; gemini-ls is running headless") || got.ask {
					t.Errorf("decide = %+v, want a refusal starting %q", got, tc.refusal)
				}
				return
			}
			if tc.want.ask {
				if !strings.HasSuffix(got.protected, yoloReason) {
					t.Errorf("decide = %+v, want it to say why yolo asks", got)
				}
				got.protected = ""
			}
			if got != tc.want {
				t.Errorf("decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}
