package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// List is the engine's rules as Gemini CLI's /policies list shows them:
// by mode, the highest priority first, each with its priority and where
// it was read; then what could not be loaded.
func (e *Engine) List() string {
	var b strings.Builder
	rules := e.Rules()
	if len(rules) == 0 {
		b.WriteString("No active policies.\n")
	} else {
		b.WriteString("**Active Policies**\n\n")
		inMode := func(r *Rule, m Mode) bool { return len(r.Modes) == 0 || slices.Contains(r.Modes, m) }
		var normal []*Rule
		for _, r := range rules {
			if inMode(r, ModeDefault) {
				normal = append(normal, r)
			}
		}
		section(&b, "Normal Mode Policies", normal)
		for _, s := range []struct {
			title string
			mode  Mode
		}{
			{"Auto Edit Mode Policies (combined with normal mode policies)", ModeAutoEdit},
			{"Yolo Mode Policies (combined with normal mode policies)", ModeYolo},
			{"Plan Mode Policies (combined with normal mode policies)", ModePlan},
		} {
			var only []*Rule
			for _, r := range rules {
				if inMode(r, s.mode) && !inMode(r, ModeDefault) {
					only = append(only, r)
				}
			}
			section(&b, s.title, only)
		}
	}
	b.WriteString("Below these rules, the rest of Gemini CLI's default policies apply, built into gemini-ls: the approval mode, tools.allowed, trusted MCP servers and what you allowed for the session.\n")
	if problems := e.Problems(); len(problems) > 0 {
		b.WriteString("\n### Problems\n")
		for _, p := range problems {
			b.WriteString("- " + p.String() + "\n")
		}
	}
	return b.String()
}

func section(b *strings.Builder, title string, rules []*Rule) {
	fmt.Fprintf(b, "### %s\n", title)
	if len(rules) == 0 {
		b.WriteString("_No policies._\n\n")
		return
	}
	for i, r := range rules {
		fmt.Fprintf(b, "%d. **%s** tool: `%s`", i+1, strings.ToUpper(string(r.Decision)), r.ToolName)
		if r.Args != nil {
			fmt.Fprintf(b, " (args match: `%s`)", r.Args)
		}
		fmt.Fprintf(b, " [Priority: %s] [Source: %s]\n", strconv.FormatFloat(r.Priority, 'f', -1, 64), r.Source)
	}
	b.WriteString("\n")
}
