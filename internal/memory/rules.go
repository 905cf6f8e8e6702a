package memory

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/frontmatter"
)

// Antigravity's workspace rules are Markdown files in <root>/.agents/rules,
// each with an optional front matter whose trigger says when Antigravity
// applies it: always_on (always), glob, model_decision (when its model
// judges the description relevant) or manual (when the user mentions
// it). gemini-ls gives the model the always_on rules, and those with no
// trigger, as project context after the root's context files; the others
// need a judgement Antigravity makes and gemini-ls does not, so they are
// not read, and RulesReport says so.

// maxRules bounds the rule files read from one root.
const maxRules = 100

// triggerAlwaysOn is the trigger of a rule applied to every request.
const triggerAlwaysOn = "always_on"

// RulesDir is a root's Antigravity rules directory.
func RulesDir(root string) string { return configfiles.AgentsRules(root) }

// ruleFiles are root's rule files, by name, at most maxRules of them.
func (l *Loader) ruleFiles(root string) []string {
	entries, err := os.ReadDir(RulesDir(root))
	if err != nil {
		return nil
	}
	var paths []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") && present(l.ws.Documents(), filepath.Join(RulesDir(root), e.Name())) {
			paths = append(paths, filepath.Join(RulesDir(root), e.Name()))
		}
	}
	sort.Strings(paths)
	if len(paths) > maxRules {
		l.log.Warn("reading only the first Antigravity rules", zap.String("dir", RulesDir(root)), zap.Int("read", maxRules), zap.Int("found", len(paths)))
		paths = paths[:maxRules]
	}
	return paths
}

// ruleBody is a rule's text without its front matter, and whether it
// applies to every request; when not, why is the reason.
func ruleBody(text string) (body string, always bool, why string) {
	front, rest, ok := frontmatter.Split(text)
	if !ok {
		return text, true, ""
	}
	v, err := frontmatter.Parse(front)
	if err != nil {
		return "", false, "its front matter is not YAML: " + err.Error()
	}
	trigger, set := v.Get("trigger")
	switch {
	case !set || trigger.Text == triggerAlwaysOn:
		return rest, true, ""
	case trigger.Kind != frontmatter.String:
		return "", false, "its trigger is not a string"
	}
	return "", false, "trigger " + trigger.Text + ": Antigravity applies it only when " + triggerWhen(trigger.Text) + ", a judgement gemini-ls does not make"
}

// triggerWhen says when Antigravity applies a rule of trigger t.
func triggerWhen(t string) string {
	switch t {
	case "glob":
		return "a file matching its globs is in play"
	case "model_decision":
		return "its model finds the description relevant"
	case "manual":
		return "the user mentions it"
	}
	return "its trigger says, which no public source describes"
}

// RuleReport is what became of one Antigravity rule file.
type RuleReport struct {
	Path string
	Read bool
	// Why it was not read; "" when it was.
	Why string
}

// RulesReport says, for each root's Antigravity rule files, which are in
// the memory and why the others are not.
func (l *Loader) RulesReport(ctx context.Context) []RuleReport {
	var out []RuleReport
	for _, root := range l.ws.Roots() {
		trusted := l.trusted == nil || l.trusted(root)
		sc := l.projectScope(root)
		for _, p := range l.ruleFiles(root) {
			out = append(out, l.ruleReport(ctx, p, sc, trusted))
		}
	}
	return out
}

func (l *Loader) ruleReport(ctx context.Context, path string, sc *scope, trusted bool) RuleReport {
	if !trusted {
		return RuleReport{Path: path, Why: "a workspace's rules apply only in a trusted folder"}
	}
	if sc == nil {
		return RuleReport{Path: path, Why: "the folder cannot be read"}
	}
	text, err := sc.read(ctx, path)
	if err != nil {
		return RuleReport{Path: path, Why: err.Error()}
	}
	body, always, why := ruleBody(text)
	switch {
	case !always:
		return RuleReport{Path: path, Why: why}
	case strings.TrimSpace(body) == "":
		return RuleReport{Path: path, Why: "it is empty"}
	}
	return RuleReport{Path: path, Read: true}
}
