package dialog

import (
	"errors"
	"strings"
)

// The words the tools, the agent and the front ends share: what a call
// is (Kind), how it ended (Status), what became of a proposed change
// (Outcome, Decision), what runs without asking (ApprovalMode), a
// question put to the user and its answer (Question, Option, Answer),
// and the model's topic (Topic). Every package reads them here.

// Kind groups tools by what their calls do, for display: a tool says
// its kind in its Annotations.
type Kind string

const (
	KindRead    Kind = "read"
	KindSearch  Kind = "search"
	KindEdit    Kind = "edit"
	KindExecute Kind = "execute"
	KindFetch   Kind = "fetch"
	// KindThink: the call only records the model's own reasoning (its
	// to-do list).
	KindThink Kind = "think"
	// KindOther: none of the above (activate_skill).
	KindOther Kind = "other"
	// KindAgent: the call runs a subagent, and its result is the
	// subagent's report (invoke_agent; 0.61's Kind.Agent).
	KindAgent Kind = "agent"
)

// Status is how a call ended, for the user's display.
type Status string

const (
	StatusOK        Status = "ok"
	StatusError     Status = "error"
	StatusRejected  Status = "rejected"
	StatusCancelled Status = "cancelled"
)

// Outcome is what became of a proposed change.
type Outcome string

const (
	// Applied: the file now holds exactly the proposed text.
	Applied Outcome = "applied"
	// Declined: the user rejected it; the file is unchanged. As Gemini
	// CLI 0.61 cancels the calls still queued when the user answers a
	// confirmation with no, the agent then cancels the later calls.
	Declined Outcome = "declined"
	// Refused: the front end did not land it and no user said no: it had
	// nobody to ask (a headless run), or the editor could not or would not
	// take it; Reason says why. The file is unchanged, and later calls
	// run: 0.61's non-interactive refusal is a policy denial, an error
	// that cancels nothing.
	Refused Outcome = "refused"
	// Modified: the user changed the proposal; Decision.Content holds the result.
	Modified Outcome = "modified"
	// Stale: the document changed since the proposal was made; nothing applied.
	Stale Outcome = "stale"
)

// Decision reports a proposal's outcome truthfully, read from the document.
type Decision struct {
	Outcome Outcome
	// Content is the file's text after the exchange (for Modified, what the
	// user made of it).
	Content string
	// Reason explains Declined, Refused or Stale in words for the model.
	Reason string
}

// ApprovalMode says what runs without asking.
type ApprovalMode string

const (
	ApprovalDefault  ApprovalMode = "default"   // ask for edits and shell
	ApprovalAutoEdit ApprovalMode = "auto_edit" // edits without asking
	ApprovalYolo     ApprovalMode = "yolo"      // everything without asking
	// ApprovalPlan: read-only research and the plan file (plan.go); every
	// other write, edit and command is refused.
	ApprovalPlan ApprovalMode = "plan"
)

// MorePermissive reports whether m runs more without asking than other:
// plan, default, auto_edit and yolo, from the strictest. A mode not
// among them is the strictest.
func (m ApprovalMode) MorePermissive(other ApprovalMode) bool {
	return m.permissiveness() > other.permissiveness()
}

func (m ApprovalMode) permissiveness() int {
	switch m {
	case ApprovalDefault:
		return 1
	case ApprovalAutoEdit:
		return 2
	case ApprovalYolo:
		return 3
	}
	return 0
}

// Name is the mode as Gemini CLI 0.61's footer names it to its users:
// manual, auto-accept edits, YOLO, plan.
func (m ApprovalMode) Name() string {
	switch m {
	case ApprovalDefault:
		return "manual"
	case ApprovalAutoEdit:
		return "auto-accept edits"
	case ApprovalYolo:
		return "YOLO"
	case ApprovalPlan:
		return "plan"
	}
	return string(m)
}

// QuestionKind says what puts a Question: a closed set, each front end
// wording each (the editor clients' tests hold them to the wire schema).
type QuestionKind string

const (
	// QuestionAskUser: ask_user's question.
	QuestionAskUser QuestionKind = "ask_user"
	// QuestionPlanApproval: exit_plan_mode's approval of the plan.
	QuestionPlanApproval QuestionKind = "plan_approval"
)

// Question is what a call asks the user to answer (ask_user's question,
// exit_plan_mode's approval), presented by whichever front end runs the
// session: a plugin's own UI, window/showMessageRequest, ACP's permission
// request. No tool knows which.
//
// Its json tags, and Option's and Answer's, are their names in LSP's
// gemini/ask (docs/protocol.md 9b), whose types embed them.
type Question struct {
	Kind  QuestionKind `json:"kind"`
	Title string       `json:"title"`
	// Text is the question, Markdown.
	Text    string   `json:"text"`
	Options []Option `json:"options"`
	// Multiple lets the user choose more than one option.
	Multiple bool `json:"multiple"`
	// FreeText lets the user answer in their own words instead.
	FreeText bool `json:"freeText"`
}

// Option is one answer a Question offers.
type Option struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Answer is the user's answer to a Question.
type Answer struct {
	// Chosen are the IDs of the options chosen.
	Chosen []string `json:"chosen"`
	// Text is the user's own words, where the question allowed them.
	Text string `json:"text"`
	// Declined: the user dismissed the question without answering; that
	// is an answer too, for the model to act on.
	Declined bool `json:"declined"`
	// Note says what the front end could not offer the user (a choice of
	// several options, their own words), for the model; "" when nothing.
	// The front end writes it, never the user's editor.
	Note string `json:"-"`
}

// OneChoiceNote is the Answer.Note of a front end that offers one option
// and no words of the user's own (a message box's buttons, ACP's
// permission options): what of q it could not offer; "" when nothing.
func (q Question) OneChoiceNote() string {
	var notes []string
	if q.Multiple {
		notes = append(notes, "the user's editor could offer a choice of one option only, so at most one was chosen")
	}
	if q.FreeText {
		notes = append(notes, "the user's editor could offer the options only, not an answer in their own words")
	}
	return strings.Join(notes, "; ")
}

// ErrCannotAsk is wrapped by a Confirmer's, an Asker's or a tool's
// AskFunc's error when there is nobody to ask; the error's text, written
// for the model, says how to allow the call.
var ErrCannotAsk = errors.New("cannot ask the user")

// Topic is what the model says it is doing: Title and Summary when a new
// phase starts, Intent always. The json tags are its names in LSP's topic
// update, which sends Summary (text) only with a new topic.
type Topic struct {
	Title   string `json:"title"`
	Summary string `json:"text,omitempty"`
	Intent  string `json:"intent,omitempty"`
	// New reports whether Title starts a new topic, as against one more
	// intent within the current.
	New bool `json:"newTopic,omitempty"`
}

// ErrYoloDisabled refuses the yolo approval mode asked for at start-up
// (a flag, settings, an editor's options) where settings'
// security.disableYoloMode is set, in Gemini CLI 0.61's words, the two
// lines its stderr shows: the setting's name, then the FatalConfigError
// its loadCliConfig throws (exit status 52).
var ErrYoloDisabled = errors.New("YOLO mode is disabled by the \"disableYolo\" setting.\nYOLO mode is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli")

// ErrYoloSecureMode is ErrYoloDisabled where the system settings'
// admin.secureModeEnabled refuses yolo, with 0.61's line naming that
// setting; errors.Is takes it for ErrYoloDisabled.
var ErrYoloSecureMode error = yoloSecureMode{}

type yoloSecureMode struct{}

func (yoloSecureMode) Error() string {
	return "YOLO mode is disabled by \"secureModeEnabled\" setting.\nYOLO mode is disabled by your administrator. To enable it, please request an update to the settings at: https://goo.gle/manage-gemini-cli"
}

func (yoloSecureMode) Is(target error) bool { return target == ErrYoloDisabled }
