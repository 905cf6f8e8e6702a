package shellparse

import (
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

func TestSplitWindows(t *testing.T) {
	const (
		ps  = osshell.PowerShell
		cmd = osshell.Cmd
	)
	tests := []struct {
		kind   osshell.Kind
		line   string
		texts  []string // the commands' texts
		names  []string // their names
		unread bool
		writes bool
	}{
		// Separators of both shells.
		{ps, "git status; rm -rf x", []string{"git status", "rm -rf x"}, []string{"git", "rm"}, false, false},
		{ps, "git status && npm test || echo no", []string{"git status", "npm test", "echo no"}, []string{"git", "npm", "echo"}, false, false},
		{ps, "Get-ChildItem | Select-Object Name", []string{"Get-ChildItem", "Select-Object Name"}, []string{"Get-ChildItem", "Select-Object"}, false, false},
		{ps, "npm start &", []string{"npm start"}, []string{"npm"}, false, false},
		{ps, "git status\nrm x\r\nls", []string{"git status", "rm x", "ls"}, []string{"git", "rm", "ls"}, false, false},
		{ps, "git status;rm x", []string{"git status", "rm x"}, []string{"git", "rm"}, false, false},
		{cmd, "dir & del x", []string{"dir", "del x"}, []string{"dir", "del"}, false, false},
		{cmd, "dir&&del x||type y|more", []string{"dir", "del x", "type y", "more"}, []string{"dir", "del", "type", "more"}, false, false},
		{cmd, "git status; del x", []string{"git status", "del x"}, []string{"git", "del"}, false, false},
		// Quotes keep separators.
		{ps, `git commit -m 'a; b && c'`, []string{`git commit -m 'a; b && c'`}, []string{"git"}, false, false},
		{ps, `git commit -m "it's; ok"`, []string{`git commit -m "it's; ok"`}, []string{"git"}, false, false},
		{ps, `echo 'it''s; fine'; rm x`, []string{`echo 'it''s; fine'`, "rm x"}, []string{"echo", "rm"}, false, false},
		{ps, "echo \"a`\"; b\"; rm x", []string{"echo \"a`\"; b\"", "rm x"}, []string{"echo", "rm"}, false, false},
		{ps, `echo "a""; b"; rm x`, []string{`echo "a""; b"`, "rm x"}, []string{"echo", "rm"}, false, false},
		{cmd, `echo "a & b" & del x`, []string{`echo "a & b"`, "del x"}, []string{"echo", "del"}, false, false},
		// cmd.exe has no single quotes: ' does not hide the &.
		{cmd, `echo 'a & del x'`, []string{`echo 'a`, `del x'`}, []string{"echo", "del"}, false, false},
		// A name that is not plain text.
		{ps, `'git' status`, []string{`'git' status`}, []string{""}, false, false},
		{ps, `$git status`, []string{`$git status`}, []string{""}, false, false},
		// Redirections.
		{ps, "git status > out.txt", []string{"git status > out.txt"}, []string{"git"}, false, true},
		{ps, "git status 2>&1 | Out-Null", []string{"git status 2>&1", "Out-Null"}, []string{"git", "Out-Null"}, false, false},
		{ps, "git status *> $null", []string{"git status *> $null"}, []string{"git"}, false, false},
		{ps, "git status 2>>err.log", []string{"git status 2>>err.log"}, []string{"git"}, false, true},
		{cmd, "dir >nul 2>&1", []string{"dir >nul 2>&1"}, []string{"dir"}, false, false},
		{cmd, "dir > out.txt", []string{"dir > out.txt"}, []string{"dir"}, false, true},
		// What runs code the commands do not show.
		{ps, "echo $(Remove-Item x)", nil, nil, true, false},
		{ps, `echo "$(Remove-Item x)"`, nil, nil, true, false},
		{ps, "echo @(Remove-Item x)", nil, nil, true, false},
		{ps, "echo (Remove-Item x)", nil, nil, true, false},
		{ps, "Get-ChildItem | ForEach-Object { Remove-Item $_ }", nil, nil, true, false},
		{ps, "git status `; rm x", nil, nil, true, false},
		{ps, "& $cmd", nil, nil, true, false},
		{ps, "& git status", nil, nil, true, false},
		{ps, ". ./script.ps1", nil, nil, true, false},
		{ps, "iex 'rm x'", nil, nil, true, false},
		{ps, "Invoke-Expression 'rm x'", nil, nil, true, false},
		{ps, "git status; IEX 'rm x'", nil, nil, true, false},
		{ps, "pwsh -c 'rm x'", nil, nil, true, false},
		{ps, "cmd.exe /c del x", nil, nil, true, false},
		{ps, `C:\Windows\System32\CMD.EXE /c del x`, nil, nil, true, false},
		{cmd, `C:/tools/PowerShell.exe -c x`, nil, nil, true, false},
		{ps, "git status # ' \nrm x # '", nil, nil, true, false},
		{ps, "git --% status; rm x", nil, nil, true, false},
		{ps, "echo @'\nx\n'@", nil, nil, true, false},
		{ps, "git status \u2018; rm x; echo \u2019", nil, nil, true, false},
		{cmd, "echo %PATH%", nil, nil, true, false},
		{cmd, "echo ^& del x", nil, nil, true, false},
		{cmd, "(dir & del x)", nil, nil, true, false},
		{cmd, "call x.bat", nil, nil, true, false},
		{cmd, "for %f in (*) do del %f", nil, nil, true, false},
		{cmd, "if exist x del y", nil, nil, true, false},
		{cmd, "start del x", nil, nil, true, false},
		// Within quotes, cmd's (...) is text; PowerShell's '…' hides $(…).
		{cmd, `echo "(x)"`, []string{`echo "(x)"`}, []string{"echo"}, false, false},
		{ps, `echo '$(x) @(y) {z} (w)'`, []string{`echo '$(x) @(y) {z} (w)'`}, []string{"echo"}, false, false},
		{ps, "echo a#b", []string{"echo a#b"}, []string{"echo"}, false, false},
	}
	for _, tt := range tests {
		got := SplitWindows(tt.kind, tt.line)
		if (got.Unread != "") != tt.unread {
			t.Errorf("%v %q: Unread = %q, want it set: %v", tt.kind, tt.line, got.Unread, tt.unread)
		}
		if got.Writes != tt.writes {
			t.Errorf("%v %q: Writes = %v, want %v", tt.kind, tt.line, got.Writes, tt.writes)
		}
		if got.Broken {
			t.Errorf("%v %q: Broken", tt.kind, tt.line)
		}
		if tt.unread {
			continue
		}
		var texts, names []string
		for _, c := range got.Commands {
			texts = append(texts, c.Text)
			names = append(names, c.Name)
		}
		if !slices.Equal(texts, tt.texts) || !slices.Equal(names, tt.names) {
			t.Errorf("%v %q: commands %q named %q, want %q named %q", tt.kind, tt.line, texts, names, tt.texts, tt.names)
		}
	}
}

func TestSplitWindowsWords(t *testing.T) {
	line := `git status"x" -m 'a b' 2> err.txt`
	got := SplitWindows(osshell.PowerShell, line)
	var words []string
	for _, w := range got.Commands[0].Words {
		words = append(words, line[w.Start:w.End])
	}
	want := []string{"git", `status"x"`, "-m", "'a b'"}
	if !slices.Equal(words, want) {
		t.Errorf("words %q, want %q", words, want)
	}
}

func TestSplitWindowsBroken(t *testing.T) {
	for _, tt := range []struct {
		kind osshell.Kind
		line string
	}{
		{osshell.PowerShell, "echo 'a; rm x"},
		{osshell.PowerShell, `echo "a; rm x`},
		{osshell.Cmd, `echo "a & del x`},
	} {
		if !SplitWindows(tt.kind, tt.line).Broken {
			t.Errorf("%v %q: not Broken", tt.kind, tt.line)
		}
	}
}
