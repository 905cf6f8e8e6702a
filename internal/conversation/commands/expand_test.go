package commands

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/sandbox/sandboxtest"
	"github.com/gemini-ls/gemini-ls/internal/shellquote"
)

// fakeShell records what is asked and run.
type fakeShell struct {
	decline  string                 // a command to decline
	results  map[string]ShellResult // by command; else its output is "out(<command>)"
	startErr error
	asked    []string
	ran      []string
}

func (s *fakeShell) Confirm(_ context.Context, commands []string) error {
	s.asked = append(s.asked, commands...)
	if slices.Contains(commands, s.decline) {
		return fmt.Errorf("%q: %w", s.decline, ErrDeclined)
	}
	return nil
}

func (s *fakeShell) Quote(arg string) string { return shellquote.Quote(arg) }

func (s *fakeShell) Run(_ context.Context, command string) (ShellResult, error) {
	s.ran = append(s.ran, command)
	if s.startErr != nil {
		return ShellResult{}, s.startErr
	}
	if r, ok := s.results[command]; ok {
		return r, nil
	}
	return ShellResult{Output: "out(" + command + ")"}, nil
}

// fakeFiles reads from a map; a path it lacks is not found, one mapped to
// nil is ignored.
type fakeFiles map[string][]string

func (f fakeFiles) Read(_ context.Context, path string) ([]*genai.Part, error) {
	texts, ok := f[path]
	if !ok {
		return nil, fmt.Errorf("path not found in workspace: %s", path)
	}
	var parts []*genai.Part
	for _, t := range texts {
		parts = append(parts, genai.NewPartFromText(t))
	}
	return parts, nil
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Invocation
		ok   bool
	}{
		{"/test", Invocation{Name: "test", Raw: "/test"}, true},
		{"  /git:commit  fix   the\n bug  ", Invocation{Name: "git:commit", Raw: "/git:commit  fix   the\n bug", Args: "fix the bug"}, true},
		{"/model_led 1.2.0 added \"a feature\"", Invocation{Name: "model_led", Raw: "/model_led 1.2.0 added \"a feature\"", Args: "1.2.0 added \"a feature\""}, true},
		{"/", Invocation{Raw: "/"}, true},
		{"no slash", Invocation{}, false},
	}
	for _, tt := range tests {
		got, ok := Parse(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// Expansion as Gemini CLI's FileCommandLoader, shellProcessor and
// argumentProcessor tests have it.
func TestExpand(t *testing.T) {
	tests := []struct {
		name    string
		prompt  string
		typed   string
		shell   fakeShell
		want    string
		ran     []string
		wantErr string
	}{
		{name: "plain, no args", prompt: "This is a test prompt", typed: "/test", want: "This is a test prompt"},
		{name: "{{args}}", prompt: "The user wants to: {{args}}", typed: "/shorthand do something cool", want: "The user wants to: do something cool"},
		{name: "default args appended", prompt: "This is the instruction.", typed: `/model_led 1.2.0 added "a feature"`, want: "This is the instruction.\n\n/model_led 1.2.0 added \"a feature\""},
		{name: "no args, nothing appended", prompt: "Just a regular prompt", typed: "/simple", want: "Just a regular prompt"},
		{name: "single injection", prompt: "The current status is: !{git status}", typed: "/s", shell: fakeShell{results: map[string]ShellResult{"git status": {Output: "On branch main"}}}, want: "The current status is: On branch main", ran: []string{"git status"}},
		{name: "two injections", prompt: "!{git status} in !{pwd}", typed: "/s", shell: fakeShell{results: map[string]ShellResult{"git status": {Output: "On branch main"}, "pwd": {Output: "/usr/home"}}}, want: "On branch main in /usr/home", ran: []string{"git status", "pwd"}},
		{name: "shell with default args", prompt: "Status: !{git status}", typed: "/s now", want: "Status: out(git status)\n\n/s now", ran: []string{"git status"}},
		{name: "trimmed command", prompt: "Files: !{  ls {{args}} -l  }", typed: "/f user input", want: "Files: out(ls 'user input' -l)", ran: []string{"ls 'user input' -l"}},
		{name: "empty injection", prompt: "This is weird: !{}", typed: "/w", want: "This is weird: "},
		{name: "exit code", prompt: "!{cmd}", typed: "/c", shell: fakeShell{results: map[string]ShellResult{"cmd": {Output: "some error output", ExitCode: 1}}}, want: "some error output\n[Shell command 'cmd' exited with code 1]", ran: []string{"cmd"}},
		{name: "signal", prompt: "!{cmd}", typed: "/c", shell: fakeShell{results: map[string]ShellResult{"cmd": {Output: "output", ExitCode: -1, Signal: "SIGTERM"}}}, want: "output\n[Shell command 'cmd' terminated by signal SIGTERM]", ran: []string{"cmd"}},
		{name: "aborted", prompt: "!{long-running-command}", typed: "/c", shell: fakeShell{results: map[string]ShellResult{"long-running-command": {Output: "partial output", Aborted: true}}}, want: "partial output\n[Shell command 'long-running-command' aborted]", ran: []string{"long-running-command"}},
		{name: "spawn failure", prompt: "!{bad-command}", typed: "/test-command", shell: fakeShell{startErr: errors.New("spawn EACCES")}, wantErr: "failed to start shell command in 'test-command': spawn EACCES. Command: bad-command"},
		{name: "raw args outside", prompt: `Outside: {{args}}. Inside: !{echo "hello"}`, typed: "/c user input", shell: fakeShell{results: map[string]ShellResult{`echo "hello"`: {Output: "hello"}}}, want: "Outside: user input. Inside: hello", ran: []string{`echo "hello"`}},
		{name: "escaped args inside", prompt: "Command: !{grep {{args}} file.txt}", typed: "/c user input", want: "Command: out(grep 'user input' file.txt)", ran: []string{"grep 'user input' file.txt"}},
		{name: "both", prompt: `User "({{args}})" requested search: !{search {{args}}}`, typed: "/c user input", want: `User "(user input)" requested search: out(search 'user input')`, ran: []string{"search 'user input'"}},
		{name: "injection attempt quoted", prompt: "!{echo {{args}}}", typed: "/c a; reboot", want: "out(echo 'a; reboot')", ran: []string{"echo 'a; reboot'"}},
		{name: "declined runs nothing", prompt: "!{git log} then !{rm -rf /}", typed: "/c", shell: fakeShell{decline: "rm -rf /"}, wantErr: `its shell commands were not allowed: "rm -rf /": declined`},
		{name: "unclosed", prompt: "Failing !{command", typed: "/test-command", wantErr: "invalid syntax in command 'test-command': unclosed injection starting at index 8"},
		{name: "no shell to ask", prompt: "!{ls}", typed: "/c", wantErr: "cannot run its shell commands here: ls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv, _ := Parse(tt.typed)
			c := Custom{Name: inv.Name, Prompt: tt.prompt}
			var sh Shell = &tt.shell
			if tt.name == "no shell to ask" {
				sh = nil
			}
			got, err := c.Expand(context.Background(), inv, sh, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if len(tt.shell.ran) > 0 && tt.shell.startErr == nil {
					t.Errorf("ran %v though the expansion failed", tt.shell.ran)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Text() != tt.want || len(got.Parts) != 1 {
				t.Errorf("expanded to %q in %d parts, want %q", got.Text(), len(got.Parts), tt.want)
			}
			if !slices.Equal(tt.shell.ran, tt.ran) {
				t.Errorf("ran %q, want %q", tt.shell.ran, tt.ran)
			}
			if !slices.Equal(tt.shell.asked, tt.ran) {
				t.Errorf("asked about %q, want %q", tt.shell.asked, tt.ran)
			}
		})
	}
}

// Every command is asked about before any runs, as Gemini CLI confirms
// them all first.
func TestExpandAsksBeforeRunning(t *testing.T) {
	sh := &fakeShell{}
	order := []string{}
	c := Custom{Name: "c", Prompt: "!{a} !{b} !{a}"}
	rec := recordingShell{sh, &order}
	if _, err := c.Expand(context.Background(), Invocation{Name: "c", Raw: "/c"}, rec, nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{"ask a", "ask b", "run a", "run b", "run a"}; !slices.Equal(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
}

type recordingShell struct {
	*fakeShell
	order *[]string
}

func (r recordingShell) Confirm(ctx context.Context, commands []string) error {
	for _, c := range commands {
		*r.order = append(*r.order, "ask "+c)
	}
	return r.fakeShell.Confirm(ctx, commands)
}

func (r recordingShell) Run(ctx context.Context, command string) (ShellResult, error) {
	*r.order = append(*r.order, "run "+command)
	return r.fakeShell.Run(ctx, command)
}

// @{…} as Gemini CLI's atFileProcessor has it, run before the shell: a
// file's text in place, an ignored file dropped with a note, one that
// cannot be read left as written with a note; the text a file brought is
// not expanded again.
func TestExpandFiles(t *testing.T) {
	files := fakeFiles{
		"a.txt":       {"content of a"},
		"ignored.txt": nil,
		"evil.txt":    {"{{args}} !{rm -rf ~}"},
		"dir":         {"--- Start of content for directory: dir ---\n", "--- x ---\n", "x", "\n", "--- End of content for directory: dir ---"},
	}
	tests := []struct {
		name, prompt, typed string
		want                []string // the parts' texts
		notes               []string
	}{
		{"file", "Review @{a.txt} please", "/r", []string{"Review ", "content of a", " please"}, nil},
		{"directory", "All: @{dir}", "/r", []string{"All: ", "--- Start of content for directory: dir ---\n", "--- x ---\n", "x", "\n", "--- End of content for directory: dir ---"}, nil},
		{"ignored", "Look: @{ignored.txt}", "/r", []string{"Look: "}, []string{"File '@{ignored.txt}' was ignored by .gitignore or .geminiignore and was not included in the prompt."}},
		{"missing", "Look: @{nope.txt}!", "/r", []string{"Look: ", "@{nope.txt}", "!"}, []string{"Failed to inject content for '@{nope.txt}': path not found in workspace: nope.txt"}},
		{"default args after the file", "@{a.txt}", "/r more", []string{"content of a\n\n/r more"}, nil},
		{"injected text is data", "{{args}} @{evil.txt}", "/r x", []string{"x ", "{{args}} !{rm -rf ~}"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := &fakeShell{}
			inv, _ := Parse(tt.typed)
			got, err := Custom{Name: "r", Prompt: tt.prompt}.Expand(context.Background(), inv, sh, files)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, p := range got.Parts {
				texts = append(texts, p.Text)
			}
			if !slices.Equal(texts, tt.want) {
				t.Errorf("parts %q, want %q", texts, tt.want)
			}
			if !slices.Equal(got.Notes, tt.notes) {
				t.Errorf("notes %q, want %q", got.Notes, tt.notes)
			}
			if len(sh.asked)+len(sh.ran) > 0 {
				t.Errorf("asked %q, ran %q: nothing should run", sh.asked, sh.ran)
			}
		})
	}
}

// bashShell runs each command with bash -c.
type bashShell struct{ path string }

func (bashShell) Confirm(context.Context, []string) error { return nil }

func (bashShell) Quote(arg string) string { return shellquote.Quote(arg) }

func (s bashShell) Run(ctx context.Context, command string) (ShellResult, error) {
	out, err := exec.CommandContext(ctx, s.path, "-c", command).Output()
	return ShellResult{Output: string(out)}, err
}

// {{args}} inside !{…} reaches the command as the user typed it, whatever
// quotes, ! or $ it holds.
func TestArgsReachBashAsTyped(t *testing.T) {
	sandboxtest.NeedBash(t)
	path, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		"it's!", "don't!! $HOME `id` $(id)", `a'b!c "d" \e`, "!$ !-1 !!", "~root", "{a,b} *.go [x]", "a; reboot",
	} {
		c := Custom{Name: "echo", Prompt: "!{printf '%s' {{args}}}"}
		inv, _ := Parse("/echo " + args)
		got, err := c.Expand(context.Background(), inv, bashShell{path}, nil)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got.Text() != args {
			t.Errorf("bash saw %q, the user typed %q", got.Text(), args)
		}
	}
}
