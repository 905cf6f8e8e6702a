package commands

import (
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
)

// PromptCommand is the entry of an MCP server's prompt: its name with
// white space made "-", its description (else "Invoke prompt <name>"),
// and its arguments as the hint, as Gemini CLI's McpPromptLoader offers
// it.
func PromptCommand(p mcp.Prompt) Command {
	c := Command{Name: PromptCommandName(p.Name), Description: p.Description, Source: MCP, Prompt: true}
	if c.Description == "" {
		c.Description = "Invoke prompt " + p.Name
	}
	var hint []string
	for _, a := range p.Arguments {
		h := fmt.Sprintf("--%s=\"…\"", a.Name)
		if !a.Required {
			h = "[" + h + "]"
		}
		hint = append(hint, h)
	}
	c.Hint = strings.Join(hint, " ")
	return c
}

// PromptCommandName is the command name of the MCP prompt named name.
func PromptCommandName(name string) string {
	return strings.Join(strings.FieldsFunc(name, isSpace), "-")
}

// isSpace is JavaScript's \s, which Gemini CLI splits and collapses
// white space with.
func isSpace(r rune) bool {
	return strings.ContainsRune(" \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff", r)
}

var (
	namedArg      = lazyregexp.New(`--([^=]+)=(?:"((?:\\.|[^"\\])*)"|([^ ]+))`)
	positionalArg = lazyregexp.New(`(?:"((?:\\.|[^"\\])*)"|([^ ]+))`)
	escaped       = lazyregexp.New(`\\(.)`)
)

// PromptArgs parses what followed an MCP prompt command's name into the
// prompt's arguments, as Gemini CLI's McpPromptLoader.parseArgs does:
// --name="value" (or --name=value) by name; the rest, words or "quoted
// strings" with \-escapes, fill the required arguments not named, in
// order, and all of them the one such argument when only one is left.
// A required argument left without a value is an error naming it.
func PromptArgs(args string, params []mcp.PromptArgument) (map[string]string, error) {
	named := map[string]string{}
	var positional strings.Builder
	last := 0
	for _, m := range namedArg.FindAllStringSubmatchIndex(args, -1) {
		named[args[m[2]:m[3]]] = unescape(group(args, m, 2, 3))
		positional.WriteString(args[last:m[0]])
		last = m[1]
	}
	positional.WriteString(args[last:])
	rest := strings.TrimSpace(positional.String())
	var words []string
	for _, m := range positionalArg.FindAllStringSubmatchIndex(rest, -1) {
		words = append(words, unescape(group(rest, m, 1, 2)))
	}

	inputs := map[string]string{}
	var unfilled []string
	for _, p := range params {
		if v := named[p.Name]; v != "" {
			inputs[p.Name] = v
		} else if p.Required {
			unfilled = append(unfilled, p.Name)
		}
	}
	if len(unfilled) == 1 {
		inputs[unfilled[0]] = strings.Join(words, " ")
		return inputs, nil
	}
	var missing []string
	for i, name := range unfilled {
		if i < len(words) {
			inputs[name] = words[i]
		} else {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing required argument(s): %s", strings.Join(missing, ", "))
	}
	return inputs, nil
}

// group is the first of the two alternatives' groups (a and b, by
// number) that matched.
func group(s string, m []int, a, b int) string {
	if m[2*a] >= 0 {
		return s[m[2*a]:m[2*a+1]]
	}
	return s[m[2*b]:m[2*b+1]]
}

func unescape(s string) string { return escaped.ReplaceAllString(s, "$1") }
