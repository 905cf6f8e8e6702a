package commands

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/tools"
)

// !{…} commands are allowed as run_shell_command's are: refused when the
// tool is not enabled, unasked in yolo mode, else asked about one by one,
// the first no ending the questions.
func TestToolShellConfirm(t *testing.T) {
	var asked []string
	ask := func(_ context.Context, c string) error {
		asked = append(asked, c)
		if c == "no" {
			return ErrDeclined
		}
		return nil
	}
	tests := []struct {
		name    string
		shell   ToolShell
		cmds    []string
		asked   []string
		wantErr string
	}{
		{"not enabled", ToolShell{Mode: tools.ApprovalYolo, Ask: ask}, []string{"ls"}, nil, "run_shell_command is not enabled"},
		{"yolo", ToolShell{Enabled: true, Mode: tools.ApprovalYolo, Ask: ask}, []string{"ls", "no"}, nil, ""},
		{"default asks each", ToolShell{Enabled: true, Mode: tools.ApprovalDefault, Ask: ask}, []string{"ls", "pwd"}, []string{"ls", "pwd"}, ""},
		{"auto_edit asks too", ToolShell{Enabled: true, Mode: tools.ApprovalAutoEdit, Ask: ask}, []string{"ls"}, []string{"ls"}, ""},
		{"declined stops", ToolShell{Enabled: true, Mode: tools.ApprovalDefault, Ask: ask}, []string{"no", "ls"}, []string{"no"}, "declined"},
		{"nobody to ask", ToolShell{Enabled: true, Mode: tools.ApprovalDefault}, []string{"ls"}, nil, `nobody can be asked whether to run "ls"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			err := tt.shell.Confirm(context.Background(), tt.cmds)
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
			if strings.Join(asked, ",") != strings.Join(tt.asked, ",") {
				t.Errorf("asked %q, want %q", asked, tt.asked)
			}
		})
	}
	if err := (ToolShell{Enabled: true, Ask: ask}).Confirm(context.Background(), []string{"no"}); !errors.Is(err, ErrDeclined) {
		t.Errorf("a no is %v, want ErrDeclined", err)
	}
}

// A command runs in Dir with stdout and stderr together, and how it
// ended comes back for the prompt.
func TestToolShellRun(t *testing.T) {
	dir := t.TempDir()
	sh := ToolShell{Enabled: true, Dir: dir}
	res, err := sh.Run(context.Background(), "pwd; echo oops >&2; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, dir) || !strings.Contains(res.Output, "oops") || res.ExitCode != 3 || res.Aborted {
		t.Errorf("result %+v, want the dir, stderr, exit code 3", res)
	}
	got, err := Custom{Name: "c", Prompt: "!{exit 3}"}.Expand(context.Background(), Invocation{Name: "c", Raw: "/c"}, ToolShell{Enabled: true, Mode: tools.ApprovalYolo, Dir: dir}, nil)
	if err != nil || got.Text() != "\n[Shell command 'exit 3' exited with code 3]" {
		t.Errorf("expanded to %q, %v", got.Text(), err)
	}
}
