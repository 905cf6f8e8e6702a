package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/background"
)

// ErrMaxTurns ends a prompt when the session has made Config.MaxTurns model
// requests.
var ErrMaxTurns = errors.New("Reached max session turns for this session.")

// maxPromptTurnsError ends a prompt that made MaxPromptTurns model
// requests (made when it happens, not at start-up).
func maxPromptTurnsError() error {
	return fmt.Errorf("Reached the limit of %d model requests for one prompt; send another prompt to go on.", MaxPromptTurns)
}

// Session is one conversation: its history, and what the user allowed for
// the rest of it.
type Session struct {
	id    string
	agent *Agent

	// askedAgents: the session asked about the project's agents
	// (acknowledgeAgents); only its running prompt touches it.
	askedAgents bool

	root    string // the workspace root, for session lists
	created time.Time
	// resumed: read back from disk, not started in this process.
	resumed bool

	// Guarded by agent.mu: what session lists show, and the order of use.
	title   string
	updated time.Time
	prompts int
	usage   dialog.Usage
	// context is how full the model's window was at the last answer.
	context dialog.ContextFill
	lastUse uint64
	// pins are the front ends' holds on the session (Pin): a session
	// pinned is not dropped from memory.
	pins int
	// savedWhole: everything of the session is on disk, as its last
	// holder of running left it (end), so dropping it from memory loses
	// nothing.
	savedWhole bool

	// running holds a token while a prompt (or History, or a built-in
	// command's change) uses the fields below: it is their lock, which
	// waits and never refuses. The one gate that refuses a busy session
	// is conversation.Turns, which lets one prompt per session through
	// at a time.
	running chan struct{}

	chat     chat
	requests int // model requests made, for MaxTurns

	// stats counts the requests and calls by model and by tool, for
	// /stats; it has a lock of its own.
	stats statsRecord

	// saved is how much of the chat is on disk, and live the running
	// prompt's recording (livesave.go).
	saved persisted
	live  *liveSave
	// place is where the session's file is, found by its first recorded
	// prompt and kept for the next ones (sessionstore.Place); only the
	// running prompt touches it.
	place *sessionstore.Place
	// exchanges is the transcript the user saw, one per prompt; it has a
	// lock of its own, as clients read it while a prompt runs.
	exchangesMu sync.Mutex
	exchanges   []sessionstore.Exchange

	// editor is what the model was last told of the editor.
	editor editorState

	// approvals is the session's approval service, the one door every
	// call passes (approvals.go); it has a lock of its own, as saving the
	// session reads it.
	approvals *approvals

	// modeMu guards mode: the session's own approval mode, which a
	// planning tool or the user (/plan, a front end's mode menu) chose;
	// "" follows the agent's.
	modeMu sync.Mutex
	mode   dialog.ApprovalMode
	// beforePlan is the mode the session was in when it switched itself
	// into plan mode (guarded by modeMu): what leaving plan mode with
	// nobody asked goes back to (modeBeforePlan); "" when it did not.
	beforePlan dialog.ApprovalMode
	// approvedPlan is the plan file the user last approved (guarded by
	// modeMu), which /plan shows.
	approvedPlan string

	// startSource is what started the session, for the SessionStart
	// hooks its next prompt runs: "startup", or "resume" for one read
	// back from disk; "" once they ran. Guarded by agent.mu.
	startSource string

	// modelMu guards lastModel, the concrete model the last request of
	// the session's prompts went to (LastModel), and lastSetting, the
	// agent's model setting then.
	modelMu     sync.Mutex
	lastModel   string
	lastSetting string

	// plansMu guards plansDir, the session's plans directory once found
	// (PlansDir).
	plansMu  sync.Mutex
	plansDir string

	// background are the commands run_shell_command left running for
	// the session, killed when it ends (closeBackground); topic is what
	// update_topic last said. Each has a lock of its own.
	background background.Registry
	topic      tools.TopicState

	// parent is the session whose invoke_agent call runs this one, a
	// subagent's (subagent.go): its approval mode, plans directory,
	// stats and background processes are the parent's.
	parent *Session
}

// backgroundRegistry is where the session's background processes are
// kept: a subagent's, with its parent's.
func (s *Session) backgroundRegistry() *background.Registry {
	if s.parent != nil {
		return s.parent.backgroundRegistry()
	}
	return &s.background
}

// closeBackground kills the session's background processes, as it ends.
func (s *Session) closeBackground() {
	if err := s.background.Close(); err != nil {
		s.agent.cfg.Logger.Warn("a background process of an ended session could not be killed", zap.String("sessionId", s.id), zap.Error(err))
	}
}

// Background is the session's background processes, for the user to see
// and stop (/tasks) as the model does.
func (s *Session) Background() *background.Registry { return &s.background }

// LastModel is the concrete model the session's last prompt went to:
// where an auto routed it, or the model it fell back to; "" before any
// request. /about shows it.
func (s *Session) LastModel() string {
	s.modelMu.Lock()
	defer s.modelMu.Unlock()
	return s.lastModel
}

func (s *Session) noteModel(model string) {
	if model == "" {
		return
	}
	setting := s.agent.configuredModel()
	s.modelMu.Lock()
	defer s.modelMu.Unlock()
	s.lastModel, s.lastSetting = model, setting
}

// lastModelUnder is LastModel while the agent's model setting is still
// setting, else "": Gemini CLI 0.61's active model, which each chat
// request sets and a change of model resets.
func (s *Session) lastModelUnder(setting string) string {
	s.modelMu.Lock()
	defer s.modelMu.Unlock()
	if s.lastSetting != setting {
		return ""
	}
	return s.lastModel
}

// OfferedTools are the declarations the session's next request offers
// the model in its approval mode, invoke_agent included while an agent
// is enabled: what /tools lists. A BeforeToolSelection hook may still
// narrow them for one request. They are shared: read them only.
func (s *Session) OfferedTools() []*genai.FunctionDeclaration {
	mode, plansDir := s.requestMode()
	var decls []*genai.FunctionDeclaration
	for _, t := range s.agent.offeredTools(mode, plansDir) {
		decls = append(decls, t.FunctionDeclarations...)
	}
	return decls
}

// build makes the call of tool with args in this session: a tool whose
// calls depend on the session (tools.SessionTool) gets its plans
// directory.
func (s *Session) build(tool tools.Tool, args map[string]any) (tools.Call, error) {
	st, ok := tool.(tools.SessionTool)
	if !ok {
		return tool.Build(args)
	}
	dir, err := s.PlansDir()
	if err != nil {
		return nil, err
	}
	return st.BuildIn(tools.SessionScope{PlansDir: dir, ModeBeforePlan: s.modeBeforePlan()}, args)
}

// ID identifies the session to Agent.Session.
func (s *Session) ID() string { return s.id }

// Prompt sends parts to the model and runs the turn: model answers, tool
// calls and their results, until the model answers without calling a tool.
// port is the user of this turn (dialog.Port), handed with the call as
// the MCP Go SDK hands a handler its request's session: it is shown
// every event, in order, on the caller's goroutine (a subagent's with
// the subagent it is of), and asked every question the turn asks; nil
// tells and asks nobody.
//
// A session runs one prompt at a time: Prompt on a busy session waits for
// it (or for ctx), and on a session dropped from memory since it was
// looked up returns an *UnknownSessionError, before anything is sent.
// Cancelling ctx stops
// the turn promptly with StopCancelled; the history stays valid for the
// next prompt (calls the model made are answered as cancelled, and a model
// answer cut short is not kept).
func (s *Session) Prompt(ctx context.Context, in dialog.Input, port dialog.Port) (dialog.PromptResult, error) {
	if err := s.begin(ctx, cmp.Or(in.Text, in.Command)); err != nil {
		if ctx.Err() != nil {
			return dialog.PromptResult{StopReason: dialog.StopCancelled, Err: ctx.Err()}, nil
		}
		return dialog.PromptResult{}, err
	}
	defer s.end()
	return s.prompt(ctx, in, port), nil
}

func (s *Session) prompt(ctx context.Context, in dialog.Input, port dialog.Port) dialog.PromptResult {
	show := showing(ctx, port)
	emit := func(ev dialog.Event) { show(dialog.Subagent{}, ev) }
	if err := ctx.Err(); err != nil {
		return dialog.PromptResult{StopReason: dialog.StopCancelled, Err: err}
	}
	if s.agent.cfg.Generator == nil {
		err := errors.New("the agent has no content generator: set Config.Generator")
		emit(dialog.ErrorEvent{Err: err})
		return dialog.PromptResult{StopReason: dialog.StopError, Err: err}
	}
	if strings.TrimSpace(in.Text) == "" && len(in.Parts) == 0 {
		err := errors.New("the prompt is empty: nothing to send to the model")
		emit(dialog.ErrorEvent{Err: err})
		return dialog.PromptResult{StopReason: dialog.StopError, Err: err}
	}
	s.acknowledgeAgents(ctx, port, emit)
	parts, err := s.inputParts(ctx, in, emit)
	if err != nil {
		if ctx.Err() != nil {
			return dialog.PromptResult{StopReason: dialog.StopCancelled, Err: ctx.Err()}
		}
		emit(dialog.ErrorEvent{Err: err})
		return dialog.PromptResult{StopReason: dialog.StopError, Err: err}
	}
	s.startLive(ctx, cmp.Or(in.Text, in.Command), emit)
	t := &turn{
		s:        s,
		ctx:      ctx,
		port:     port,
		show:     show,
		promptID: fmt.Sprintf("%s########%d", s.id, s.promptCount()),
		system:   s.agent.systemInstruction(ctx, s.id),
		journal:  newJournal(s.journalSize()),
		loops:    loopDetector{off: s.agent.cfg.DisableLoopDetection},
	}
	t.events().prompt(promptText(in, parts))
	res := t.runHooked(promptText(in, parts), &genai.Content{Role: genai.RoleUser, Parts: parts})
	s.agent.mu.Lock()
	s.usage = s.usage.Add(res.Usage)
	s.updated = s.agent.cfg.Now().UTC()
	s.agent.mu.Unlock()
	s.save(ctx, in, res, t.journal.files, emit)
	return res
}

// promptCount is how many prompts the session has begun.
func (s *Session) promptCount() int {
	s.agent.mu.Lock()
	defer s.agent.mu.Unlock()
	return s.prompts
}

// agentNamed says whether an @name of the prompt is an enabled
// subagent's (0.61's @agent); nil without agents.
func (a *Agent) agentNamed() AgentNamed {
	if a.cfg.Agents == nil {
		return nil
	}
	return func(name string) bool {
		_, ok := a.cfg.Agents.Lookup(name)
		return ok
	}
}

// inputParts is what the model reads of the user's input: where the user
// is in the editor, then the prompt with the files its @paths, and the
// MCP resources its @SERVER:URIs, name. The user is told, in a notice,
// of each @ reference not attached, as the model is.
func (s *Session) inputParts(ctx context.Context, in dialog.Input, emit func(dialog.Event)) ([]*genai.Part, error) {
	var parts []*genai.Part
	if strings.TrimSpace(in.Text) != "" {
		var err error
		var skipped []tools.SkippedFile
		parts, skipped, err = expandReferencesTelling(ctx, s.agent.cfg.Workspace, in.Text, referents{isAgent: s.agent.agentNamed(), resources: s.agent.cfg.Resources, exactPaths: s.agent.cfg.NoReferenceSearch})
		if note := notAttached(skipped); note != "" && err == nil {
			emit(dialog.NoticeEvent{Text: note})
		}
		switch {
		case isReferenceError(err):
			return nil, err // in 0.61's words
		case err != nil:
			return nil, fmt.Errorf("reading the files the prompt references: %w", err)
		}
	}
	if text := s.editor.next(in.Editor); text != "" {
		parts = append([]*genai.Part{genai.NewPartFromText(text)}, parts...)
	}
	return append(parts, in.Parts...), nil
}
