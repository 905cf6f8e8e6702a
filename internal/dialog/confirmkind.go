package dialog

// ConfirmKind says what a ConfirmRequest asks the user to allow. It is a
// closed set, ConfirmKinds: each front end words every kind, and a test
// holds the list to the constants.
type ConfirmKind string

// The kinds, each declared with its type (TestConfirmKindsAreListed).
const (
	// ConfirmEdit: a file change, asked as the change lands (Land).
	ConfirmEdit ConfirmKind = "edit"
	// ConfirmExecute: a shell command, a discovered tool, a custom
	// command's !{…}.
	ConfirmExecute ConfirmKind = "execute"
	// ConfirmRead: reading a background shell's output.
	ConfirmRead ConfirmKind = "read"
	// ConfirmFetch: web_fetch's URLs.
	ConfirmFetch ConfirmKind = "fetch"
	// ConfirmMCP: an MCP server's tool; Details are its arguments as JSON.
	ConfirmMCP ConfirmKind = "mcp"
	// ConfirmInfo: activate_skill; the title names the skill.
	ConfirmInfo ConfirmKind = "info"
	// ConfirmPlan: enter_plan_mode.
	ConfirmPlan ConfirmKind = "plan"
	// ConfirmSearch, ConfirmThink and ConfirmOther: a call of a tool of
	// that Kind that a policy rule says to ask about (KindOf).
	ConfirmSearch ConfirmKind = "search"
	ConfirmThink  ConfirmKind = "think"
	ConfirmOther  ConfirmKind = "other"
	// ConfirmModelFallback: whether to switch to the fallback model.
	// ProceedOnce and ProceedAlways both switch for the rest of the
	// session; Cancel stops the prompt with the quota error.
	ConfirmModelFallback ConfirmKind = "model_fallback"
	// ConfirmRewind: whether to revert a file changed since the agent
	// last changed it.
	ConfirmRewind ConfirmKind = "rewind"
	// ConfirmExtension: a chat's /extensions or /skills command, whether
	// to install, link or update as Details describe, or to trust a
	// folder for it. Allowed (ProceedOnce, ProceedAlways alike) says yes,
	// Cancel no.
	ConfirmExtension ConfirmKind = "extension"
	// ConfirmAgents: acknowledging a project's new agents (0.61's "New
	// Agents Discovered"): allowed, they are offered from then on; else
	// the next session asks again.
	ConfirmAgents ConfirmKind = "agents"
)

// ConfirmKinds is every ConfirmKind, in the order above.
func ConfirmKinds() []ConfirmKind {
	return []ConfirmKind{ConfirmEdit, ConfirmExecute, ConfirmRead, ConfirmFetch, ConfirmMCP, ConfirmInfo, ConfirmPlan,
		ConfirmSearch, ConfirmThink, ConfirmOther, ConfirmModelFallback, ConfirmRewind, ConfirmExtension, ConfirmAgents}
}

// Shows is what a call asked about in this kind does, for a front end
// that shows the question as a call.
func (k ConfirmKind) Shows() Kind {
	switch k {
	case ConfirmEdit:
		return KindEdit
	case ConfirmExecute:
		return KindExecute
	case ConfirmRead:
		return KindRead
	case ConfirmFetch:
		return KindFetch
	case ConfirmSearch:
		return KindSearch
	case ConfirmThink:
		return KindThink
	case ConfirmMCP, ConfirmInfo, ConfirmPlan, ConfirmOther, ConfirmModelFallback, ConfirmRewind, ConfirmExtension, ConfirmAgents:
	}
	return KindOther
}

// DetailsLanguage is the fence language Details are shown in: a shell
// line, an MCP call's JSON arguments; "" for prose or none.
func (k ConfirmKind) DetailsLanguage() string {
	switch k {
	case ConfirmExecute:
		return "sh"
	case ConfirmMCP:
		return "json"
	case ConfirmEdit, ConfirmRead, ConfirmFetch, ConfirmInfo, ConfirmPlan, ConfirmSearch, ConfirmThink, ConfirmOther, ConfirmModelFallback, ConfirmRewind, ConfirmExtension, ConfirmAgents:
	}
	return ""
}

// ConfirmKindOf is the kind of the question about a call of a tool of
// kind k that needs no approval but which a policy rule says to ask about.
func ConfirmKindOf(k Kind) ConfirmKind {
	switch k {
	case KindRead:
		return ConfirmRead
	case KindSearch:
		return ConfirmSearch
	case KindEdit:
		return ConfirmEdit
	case KindExecute:
		return ConfirmExecute
	case KindFetch:
		return ConfirmFetch
	case KindThink:
		return ConfirmThink
	case KindOther:
	}
	return ConfirmOther
}
