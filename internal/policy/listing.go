package policy

import "slices"

// listingRules are the rules of Gemini CLI 0.61's default policy files
// whole (listing/), and gemini-ls's rules for its own tools ranked alike
// (listing/gemini-ls.toml). They decide which tools the model is told of
// (Excludes), not the calls, which the agent's approval door decides
// (defaults.go says why).
func listingRules() ([]*Rule, []Problem) { return embeddedRules(listingFiles(), "listing") }

// Excludes reports whether the model is not told of c's tool (c.Args
// are not read), as Gemini CLI 0.61's getExcludedTools decides
// (policy-engine.ts) over its default policies and the engine's rules:
// the first rule for the tool that does not look at arguments decides,
// and a deny excludes the tool, unless a rule that does look and does
// not deny comes first; where no rule speaks of the tool, a session that
// cannot ask (headless) excludes it, 0.61's default decision there being
// to deny. allowed is the priority of what settings allow every call of
// the tool by (tools.allowed 4.3, an MCP server's trust 4.2), 0 for
// none: 0.61 makes those rules too, and they outrank the rules below.
func (e *Engine) Excludes(c Call, allowed float64) bool {
	if e == nil {
		return false
	}
	for _, r := range e.listing() {
		if r.Priority <= allowed {
			return false
		}
		unconditional := *r
		unconditional.Args, unconditional.CommandPrefix = nil, ""
		if !e.matches(&unconditional, c, c.Name, "") {
			continue
		}
		if r.Args != nil {
			if r.Decision != Deny {
				return false
			}
			continue
		}
		return r.Decision == Deny
	}
	return allowed == 0 && !e.interactive
}

// withListing is rules with listingRules, by priority as New
// sorts them.
func withListing(rules []*Rule) []*Rule {
	defaults, _ := listingRules()
	return sortByPriority(slices.Concat(rules, defaults))
}
