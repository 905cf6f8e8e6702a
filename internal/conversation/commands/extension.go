package commands

import (
	"context"
	"strconv"
)

// ExtensionDir is an enabled extension's commands directory.
type ExtensionDir struct {
	Name string // the extension's
	Dir  string // <extension>/commands
}

// LoadExtensions reads the commands of the enabled extensions' directories
// (in the order given: by extension name, as Gemini CLI loads them), each
// described as "[name] description" as Gemini CLI describes them, and
// names them as Gemini CLI resolves conflicts: extension commands have the
// lowest precedence, so one whose name is taken (taken reports a
// built-in's name or one of custom's, the user's and project's commands)
// or an earlier extension's is called "<extension>.<name>", with a number
// after it if that is taken too. An untrusted root loads none, as Gemini
// CLI reads extensions' commands only in a trusted folder.
func LoadExtensions(ctx context.Context, dirs []ExtensionDir, custom []Custom, taken func(string) bool, trusted bool) (cmds []Custom, errs []error) {
	if !trusted {
		return nil, nil
	}
	used := map[string]bool{}
	for _, c := range custom {
		used[c.Name] = true
	}
	isTaken := func(name string) bool { return used[name] || (taken != nil && taken(name)) }
	for _, d := range dirs {
		found, dirErrs := loadDir(ctx, d.Dir, Extension)
		errs = append(errs, dirErrs...)
		for _, c := range found {
			c.Extension = d.Name
			c.Description = "[" + d.Name + "] " + c.Description
			if isTaken(c.Name) {
				c.Name = renamed(d.Name+"."+c.Name, isTaken)
			}
			used[c.Name] = true
			cmds = append(cmds, c)
		}
	}
	return cmds, errs
}

// renamed is base, or base followed by the first number from 1 that
// makes it a name not taken.
func renamed(base string, taken func(string) bool) string {
	name := base
	for n := 1; taken(name); n++ {
		name = base + strconv.Itoa(n)
	}
	return name
}
