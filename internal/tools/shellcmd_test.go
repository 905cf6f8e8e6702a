package tools

import (
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// TestCheckCommandNames lists the commands "always allow" can cover: the
// names every simple command runs, however it is nested.
func TestCheckCommandNames(t *testing.T) {
	for _, tc := range []struct {
		command string
		names   []string
	}{
		{"git status", []string{"git"}},
		{"git add . && git commit -m 'x'", []string{"git"}},
		{"go test ./... | tee out; npm i", []string{"go", "tee", "npm"}},
		{"ls && ls -la", []string{"ls"}},
		{"FOO=1 BAR=2 make build", []string{"make"}},
		{"FOO=1", nil}, // below: runs no command
		{`echo "a; rm -rf /" 'b|c'`, []string{"echo"}},
		{"(cd sub && make)", []string{"cd", "make"}},
		{"{ ls; pwd; }", []string{"ls", "pwd"}},
		{"! ls", []string{"ls"}},
		{"time go test", []string{"go"}},
		{"sleep 1 & wait", []string{"sleep", "wait"}},
		// Every command of a list counts, not only the first.
		{"ls; rm -rf x", []string{"ls", "rm"}},
		{"ls | rm -rf x", []string{"ls", "rm"}},
		{"ls || rm -rf x", []string{"ls", "rm"}},
		{"ls\nrm -f x", []string{"ls", "rm"}},
		// A quote the old string splitter misread hid the touch.
		{`ls $'\''; touch x #'`, []string{"ls", "touch"}},
		// A comment ends at the line break; the next line runs.
		{"ls # comment\ntouch x", []string{"ls", "touch"}},
		{"ls # don't\ntouch x", []string{"ls", "touch"}},
		{"echo x # ; rm -rf y", []string{"echo"}},
		{"ls \\\n  -la", []string{"ls"}},
		// Quote removal: the name bash looks up.
		{`\ls`, []string{"ls"}},
		{`'ls' -la`, []string{"ls"}},
		{`"l"s`, []string{"ls"}},
		// A path is its own name: allowing ls does not allow ./ls.
		{"/usr/bin/git log --oneline", []string{"/usr/bin/git"}},
		{"./gradlew build && /tmp/evil/ls", []string{"./gradlew", "/tmp/evil/ls"}},
		// Compound commands are walked.
		{"if [ -f go.mod ]; then go build; elif true; then make; else npm i; fi", []string{"[", "go", "true", "make", "npm"}},
		{`for f in *.go; do wc -l "$f"; done`, []string{"wc"}},
		{"while true; do break; done; until false; do break; done", []string{"true", "break", "false"}},
		{"case $x in a) ls ;; *) pwd ;; esac", []string{"ls", "pwd"}},
		{`[[ -f go.mod && $x == y* && -n "$HOME" ]] && go build`, []string{"go"}},
		// Arguments may expand variables.
		{`echo ${HOME:-/tmp} "${f%.go}" ${x/a/b} ${#x} $1 "$@"`, []string{"echo"}},
		{`printf '%s\n' "$x"`, []string{"printf"}},
		{"[ -d node_modules ] || npm ci", []string{"[", "npm"}},
		{"test -f go.mod", []string{"test"}},
		{"export GOFLAGS=-mod=mod && go build", []string{"export", "go"}},
		{"local -r x=1; declare -x Y", []string{"local", "declare"}},
		{"command -v go >/dev/null && go build", []string{"command", "go"}},
		// Reading, here-documents and descriptor duplication write no file.
		{"wc -l < main.go", []string{"wc"}},
		{"cat <<'EOF'\n$(rm -rf x)\nEOF", []string{"cat"}},
		{"cat <<EOF\n$HOME\nEOF", []string{"cat"}},
		{`grep x <<< "$HOME"`, []string{"grep"}},
		{"go vet 2>&1 | head; ls >&2; ls 3>&1- 1>&-", []string{"go", "head", "ls"}},
		{"ls >/dev/null 2>/dev/null; ls &>/dev/null; ls &>>/dev/null", []string{"ls"}},
		{"sleep 10 &", []string{"sleep"}},
	} {
		c := checkCommand(osshell.Bash, tc.command)
		if tc.names == nil {
			if c.why != "it runs no command" || c.names != nil {
				t.Errorf("checkCommand(%q) = %+v, want it to run no command", tc.command, c)
			}
			continue
		}
		if c.why != "" || !slices.Equal(c.names, tc.names) {
			t.Errorf("checkCommand(%q) = names %q, why %q; want names %q", tc.command, c.names, c.why, tc.names)
		}
	}
}

// TestCheckCommandAlwaysAsks lists commands that must be confirmed every
// time, whatever the user allowed: allowing their names would not cover
// what they do.
func TestCheckCommandAlwaysAsks(t *testing.T) {
	for command, why := range map[string]string{
		// Writing redirections.
		"ls > main.go":                  "it writes to a file (> main.go)",
		"ls >> log":                     "it writes to a file (>> log)",
		"ls >| f":                       "it writes to a file",
		"ls &> f":                       "it writes to a file",
		"ls &>> f":                      "it writes to a file",
		"ls 2> err":                     "it writes to a file (2> err)",
		"ls >& f":                       "it writes to a file (>& f)",
		"ls 2>&$fd":                     "it writes to a file",
		"ls <> f":                       "it writes to a file",
		`ls > "$f"`:                     "it writes to a file",
		"ls > /dev/null/../../x":        "it writes to a file",
		"> main.go":                     "it writes to a file",
		"(ls > f)":                      "it writes to a file",
		"if true; then ls; fi > f":      "it writes to a file",
		"cat < /dev/tcp/example.com/80": "it reads from a path that may be a network connection",
		`wc -l < "$f"`:                  "it reads from a path that may be a network connection",
		"ls {fd}> f":                    "it redirects a file descriptor variable",
		// Substitutions, anywhere.
		"echo $(rm -rf x)":                  "it uses command substitution ($(rm -rf x))",
		"echo `id`":                         "it uses command substitution",
		`ls "$(rm x)"`:                      "it uses command substitution",
		"FOO=$(rm x) ls":                    "it uses command substitution",
		"ls ${x:-$(rm x)}":                  "it uses command substitution",
		"cat <<EOF\n$(rm -rf x)\nEOF":       "it uses command substitution",
		"case $(rm x) in *) ls ;; esac":     "it uses command substitution",
		"diff <(ls) <(ls)":                  "it uses process substitution",
		"ls >(cat)":                         "it uses process substitution",
		"cat < <(ls)":                       "it uses process substitution",
		"[[ $(rm x) == y ]]":                "it uses command substitution",
		"for f in $(rm x); do ls; done":     "it uses command substitution",
		"shopt -s extglob\nls @(x|$(rm y))": "it uses an extended glob",
		"[[ a =~ ^(b|$(rm y))$ ]] && ls":    "it uses command substitution",
		"[[ a == @(b|$(rm y)) ]] && ls":     "it uses an extended glob",
		"echo $((1 + 2))":                   "it uses arithmetic",
		// Names that are not plain text.
		"$CMD":             "its command name is not plain text ($CMD)",
		`"$(echo ls)" -la`: "its command name is not plain text",
		"l$x":              "its command name is not plain text",
		"l*":               "its command name is not plain text",
		"{rm,-rf,x}":       "its command name is not plain text",
		"~/bin/ls":         "its command name is not plain text",
		"$'ls'":            "its command name is not plain text",
		"''":               "its command name is not plain text",
		// Functions and commands run through other commands.
		"ls() { rm -rf x; }; ls": "it defines a function",
		"function ls { :; }":     "it defines a function",
		"eval ls":                "eval runs other commands",
		"exec ls":                "exec runs other commands",
		"source x.sh":            "source runs other commands",
		". x.sh":                 ". runs other commands",
		"bash -c ls":             "bash runs other commands",
		"sh -c 'rm x'":           "sh runs other commands",
		"xargs rm < list":        "xargs runs other commands",
		"find . | xargs rm":      "xargs runs other commands",
		"/usr/bin/env rm -rf x":  "/usr/bin/env runs other commands",
		"/bin/bash -c 'rm x'":    "/bin/bash runs other commands",
		"env ls":                 "env runs other commands",
		"sudo ls":                "sudo runs other commands",
		"command ls":             "command runs other commands",
		"builtin echo":           "builtin runs other commands",
		"nohup ls &":             "nohup runs other commands",
		`\time ls`:               "time runs other commands",
		"trap 'rm x' EXIT":       "trap runs other commands",
		"alias ls=rm":            "alias runs other commands",
		"compgen -W '$(rm x)'":   "compgen runs other commands",
		"coproc ls":              "it starts a coprocess",
		// Variables that decide what runs.
		"PATH=/tmp/evil ls":             "it sets PATH, which changes what runs",
		"PATH=/tmp/evil; ls":            "it sets PATH",
		"PATH+=:. ls":                   "it sets PATH",
		"LD_PRELOAD=/tmp/x.so ls":       "it sets LD_PRELOAD",
		"DYLD_INSERT_LIBRARIES=x ls":    "it sets DYLD_INSERT_LIBRARIES",
		"BASH_ENV=x.sh make":            "it sets BASH_ENV",
		"export PATH=/tmp:$PATH; ls":    "it sets PATH",
		"for PATH in /tmp; do ls; done": "it sets PATH",
		": ${PATH:=/tmp}":               "it sets PATH",
		// Arithmetic and variable names: bash evaluates subscripts in
		// them, running command substitutions hidden in values.
		"((i++))":                          "it uses arithmetic",
		"let i=1":                          "it uses arithmetic",
		"for ((i=0;i<3;i++)); do ls; done": "it uses arithmetic",
		"echo ${a[$i]}":                    "it uses arithmetic",
		"echo ${x:1:2}":                    "it uses arithmetic",
		"[[ $x -eq 1 ]]":                   "it uses arithmetic",
		"[[ -v x ]]":                       "it tests a variable name",
		"a[$i]=1; ls":                      "it uses arithmetic",
		"a=([$i]=1)":                       "it uses arithmetic",
		"declare -i n=1":                   "declare may take a variable name",
		"declare -n r=x":                   "declare may take a variable name",
		`declare "$x"`:                     "declare may take a variable name",
		`export 'a[$(rm x)]=1'`:            "export may take a variable name",
		"echo ${!x}":                       "it uses an indirect expansion",
		"echo ${x@P}":                      "it uses a ${…@…} transformation",
		"read x":                           "read takes a variable name",
		"mapfile a < f":                    "mapfile takes a variable name",
		"unset x":                          "unset takes a variable name",
		"getopts a x":                      "getopts takes a variable name",
		"printf -v x hi":                   "printf may take a variable name",
		`printf "$f" x`:                    "printf may take a variable name",
		"[ -v x ]":                         "[ may take a variable name",
		`test "$op" x`:                     "test may take a variable name",
		`[ -f "$f" ]`:                      "[ may take a variable name",
		"[ -f *.go ]":                      "[ may take a variable name",
		"wait -p x":                        "wait may take a variable name",
		"wait $pid":                        "wait may take a variable name",
		"select x in a b; do ls; done":     "it shows a select menu",
		// Nothing to allow.
		"":                 "it runs no command",
		"# only a comment": "it runs no command",
		"x=1; y=2":         "it runs no command",
		"< main.go":        "it runs no command",
		// Syntax errors.
		"ls &&":   "it could not be parsed as bash",
		"ls '":    "it could not be parsed as bash",
		"if true": "it could not be parsed as bash",
	} {
		c := checkCommand(osshell.Bash, command)
		if c.names != nil || !strings.HasPrefix(c.why, why) {
			t.Errorf("checkCommand(%q) = names %q, why %q; want it to always ask: %q", command, c.names, c.why, why)
		}
	}
}

// TestCheckWindowsCommand: on Windows "always allow" covers the commands
// of a PowerShell or cmd.exe line, split where that shell splits them,
// and is never offered for what the split cannot vouch for (issue 57).
func TestCheckWindowsCommand(t *testing.T) {
	const (
		ps  = osshell.PowerShell
		cmd = osshell.Cmd
	)
	for _, tc := range []struct {
		kind  osshell.Kind
		line  string
		names []string
		why   string
	}{
		{ps, "git status", []string{"git"}, ""},
		{ps, "git status; Remove-Item -Recurse x", []string{"git", "Remove-Item"}, ""},
		{ps, "git add . && git commit -m 'a; b' || echo no", []string{"git", "echo"}, ""},
		{ps, "Get-ChildItem | Select-Object Name", []string{"Get-ChildItem", "Select-Object"}, ""},
		{ps, "npm test 2>&1 | Out-Null", []string{"npm", "Out-Null"}, ""},
		{ps, "npm test > $null", []string{"npm"}, ""},
		{cmd, "dir & del x", []string{"dir", "del"}, ""},
		{cmd, "dir >nul 2>&1", []string{"dir"}, ""},
		{ps, "git status > out.txt", nil, "it writes to a file"},
		{ps, "git status $(rm x)", nil, "it uses a subexpression"},
		{ps, "git status @(rm x)", nil, "it uses an array subexpression"},
		{ps, "git status `; rm x", nil, "it escapes characters with a backtick"},
		{ps, "Get-ChildItem | % { rm $_ }", nil, "% runs code"},
		{ps, "Get-ChildItem | Sort-Object { rm $_ }", nil, "it has a script block"},
		{ps, "iex 'rm x'", nil, "iex runs code"},
		{ps, "git status; & $x", nil, "it runs a command through PowerShell's call operator"},
		{ps, "$x = 1; git status", nil, "its command name is not plain text"},
		{ps, "'git' status", nil, "its command name is not plain text"},
		{ps, "xargs rm", nil, "xargs runs other commands"},
		{ps, "echo 'open", nil, "it could not be parsed as powershell"},
		{cmd, "echo %PATH%", nil, "it uses cmd.exe's % or ! expansion"},
		{cmd, "dir > out.txt", nil, "it writes to a file"},
		{cmd, "call build.bat", nil, "call runs code"},
		{ps, "", nil, "it runs no command"},
	} {
		c := checkCommand(tc.kind, tc.line)
		if !slices.Equal(c.names, tc.names) || !strings.HasPrefix(c.why, tc.why) || (tc.why == "") != (c.why == "") {
			t.Errorf("%v checkCommand(%q) = names %q, why %q; want names %q, why %q", tc.kind, tc.line, c.names, c.why, tc.names, tc.why)
		}
	}
}
