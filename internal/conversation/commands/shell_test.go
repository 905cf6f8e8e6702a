package commands

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// !{…} commands are decided by Allow (the approval door) one by one,
// the first no ending the questions; none runs when the tool is not
// enabled.
func TestToolShellConfirm(t *testing.T) {
	var asked []string
	allow := func(_ context.Context, c string) (bool, error) {
		asked = append(asked, c)
		switch c {
		case "no":
			return false, nil
		case "cannot":
			return false, errors.New("nobody to ask")
		}
		return true, nil
	}
	tests := []struct {
		name    string
		shell   ToolShell
		cmds    []string
		asked   []string
		wantErr string
	}{
		{"not enabled", ToolShell{Allow: allow}, []string{"ls"}, nil, "run_shell_command is not enabled"},
		{"decides each", ToolShell{Enabled: true, Allow: allow}, []string{"ls", "pwd"}, []string{"ls", "pwd"}, ""},
		{"declined stops", ToolShell{Enabled: true, Allow: allow}, []string{"no", "ls"}, []string{"no"}, `"no": declined`},
		{"cannot ask stops", ToolShell{Enabled: true, Allow: allow}, []string{"cannot", "ls"}, []string{"cannot"}, "nobody to ask"},
		{"no door", ToolShell{Enabled: true}, []string{"ls"}, nil, `nobody can be asked whether to run "ls"`},
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
	if err := (ToolShell{Enabled: true, Allow: allow}).Confirm(context.Background(), []string{"no"}); !errors.Is(err, ErrDeclined) {
		t.Errorf("a no is %v, want ErrDeclined", err)
	}
}

// A command runs in Dir with stdout and stderr together, and how it
// ended comes back for the prompt.
func TestToolShellRun(t *testing.T) {
	dir := t.TempDir()
	shell, line := osshell.Shell{}, "pwd; echo oops >&2; exit 3"
	if runtime.GOOS == "windows" {
		// cmd.exe, which every Windows has: Wine's powershell.exe, the
		// shell osshell finds there, is a stub that runs nothing.
		shell, line = osshell.Shell{Kind: osshell.Cmd, Executable: "cmd.exe", Args: []string{"/d", "/s", "/c"}}, "cd & echo oops 1>&2 & exit 3"
	}
	sh := ToolShell{Enabled: true, Dir: dir, Shell: shell}
	res, err := sh.Run(context.Background(), line)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, dir) || !strings.Contains(res.Output, "oops") || res.ExitCode != 3 || res.Aborted {
		t.Errorf("result %+v, want the dir, stderr, exit code 3", res)
	}
	got, err := Custom{Name: "c", Prompt: "!{exit 3}"}.Expand(context.Background(), Invocation{Name: "c", Raw: "/c"}, ToolShell{Enabled: true, Allow: func(context.Context, string) (bool, error) { return true, nil }, Dir: dir, Shell: shell}, nil)
	if err != nil || got.Text() != "\n[Shell command 'exit 3' exited with code 3]" {
		t.Errorf("expanded to %q, %v", got.Text(), err)
	}
}
