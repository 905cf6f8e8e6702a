package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/bounded"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/modelconfig"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/protected"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// DefaultModel is used when Config.Model is empty: auto, routed per
// prompt, as Gemini CLI 0.61 defaults to it.
const DefaultModel = models.Default

// MaxPromptTurns bounds the model requests of one prompt, as Gemini CLI's
// MAX_TURNS does, whatever the session's bound.
const MaxPromptTurns = 100

// ToolSet is what the agent needs of a tool registry; *tools.Registry
// satisfies it.
type ToolSet interface {
	Get(name string) (tools.Tool, bool)
	// Declarations returns the same slice while the tools and their
	// declarations stay the same, and a new one when they change: the
	// agent keeps what it makes of one slice until it gets another.
	// Nobody changes the slice or its declarations.
	Declarations() []*genai.FunctionDeclaration
	// UnknownToolError is the message sent to the model for a call of a
	// tool it was not told of: none of the tools declared (their names),
	// or none of the set's.
	UnknownToolError(name string, declared []string) string
}

// Config configures an Agent.
type Config struct {
	Generator ContentGenerator
	// Model defaults to DefaultModel.
	Model string
	Tools ToolSet
	// Store keeps sessions on disk, to resume them after a restart; they
	// live only in memory when nil.
	Store *sessionstore.Store
	// Workspace is where the prompt's @paths are read; none when nil.
	Workspace *workspace.Workspace
	// Resources are the MCP resources a prompt's @SERVER:URI attaches
	// (atresource.go); none when nil.
	Resources Resources
	// NoReferenceSearch: a prompt's @path that names no file or directory
	// stays as typed, not searched for as "**/*path*" (settings'
	// context.fileFiltering.enableRecursiveFileSearch false).
	NoReferenceSearch bool
	// Landed is told of the files a landing changed (an edit call's, a
	// rewind's, a restore's), for those who must know what the agent
	// wrote (setup: the language servers it started, the sandbox); nil
	// tells nobody. The user is reached only through the port handed
	// with the call that starts a turn (dialog.Port).
	Landed func(ctx context.Context, paths []string)
	// Diagnostics asks the user's editor for the diagnostics it shows:
	// after an edit lands, the model is told the errors new in the file
	// (tools.EditWatch). None when nil (the editor cannot answer).
	Diagnostics dialog.DiagnosticsReader
	// Checkpointer takes a checkpoint before each edit lands; none when
	// nil (checkpointer.go).
	Checkpointer Checkpointer
	// Hooks runs the user's hooks at the session's events (hooks.go);
	// none when nil.
	Hooks        Hooks
	ApprovalMode dialog.ApprovalMode
	// PlansDir finds the plans directory of the session with the id:
	// where plan mode lets the model write its plan. A session asks once,
	// on first use, and makes the directory reachable through Workspace
	// (Workspace.Allow). Plan mode has no plans directory when nil.
	PlansDir func(sessionID string) (string, error)
	// ModelConfigs resolves the conversation's model through the
	// settings' modelConfigs (aliases and overrides) at each request;
	// nil: the model is sent as named, with the agent's own config.
	ModelConfigs *modelconfig.Set
	// ProjectTempDir finds the project's temporary directory,
	// ~/.gemini/tmp/<project>, where the whole of a cut tool output is
	// saved (truncate.go); nil: nowhere, and the model is told so.
	ProjectTempDir func() (string, error)
	// SessionContext begins each session's history with Gemini CLI's
	// <session_context> (envcontext.go): the date, the system, the
	// project's temporary directory and, with DirectoryTree (settings'
	// context.includeDirectoryTree), the workspace's directories drawn.
	SessionContext, DirectoryTree bool
	// ToolOutputThreshold is how many characters of a shell command's
	// output (or an MCP tool's text) the model is sent before the rest
	// is cut (tools.truncateToolOutputThreshold); 0 or less cuts nothing.
	ToolOutputThreshold int
	// NoPlanRouting turns off plan mode's say in an auto's model
	// (route.go): general.plan.modelRouting false.
	NoPlanRouting bool
	// Untrusted: the workspace is not a trusted folder, so a call may
	// switch a session to the default or the plan mode only, as in Gemini
	// CLI (an approved plan's auto_edit becomes default).
	Untrusted bool
	// TrackerDir finds a session's task tracker directory, which the
	// system prompt names while the tracker's tools are offered
	// (experimental.taskTracker); nil: none.
	TrackerDir tools.TrackerDir
	// AllowedKeys are permission keys (tools.Confirmation.AllowKeys,
	// tools.EditKey) that run without asking, and TrustedTools the tools
	// every call of which does: settings' tools.allowed.
	AllowedKeys  []string
	TrustedTools []string
	// Policy is the policy files' rules, which the approval door consults
	// for every call (approvals.go decide); none when nil.
	Policy *policy.Engine
	// Shell is the language run_shell_command's shell reads (tools'
	// ShellOptions.Shell): the policy's rules and the user's "always
	// allow" read its command lines so. Bash when zero.
	Shell osshell.Kind
	// AlwaysAllow is what settings' security make of the user's "always
	// allow" (approvals.go).
	AlwaysAllow AlwaysAllow
	// Protected are the files an edit of which always asks a person
	// (protect.go); the zero Set holds the names internal/protected
	// lists, and setup adds the paths settings put elsewhere.
	Protected protected.Set
	// ProjectRoots are the workspace's roots the front end gave, whose
	// trust was decided; the directories included from outside them
	// (--include-directories, includeDirectories, /directory add) are
	// not among them. In yolo an edit of a protected file in an
	// included directory still asks (protect.go). nil: every root is
	// the project's.
	ProjectRoots []string
	// MaxTurns bounds the model requests of a session (settings'
	// model.maxSessionTurns); no bound when 0 or less. Each prompt is
	// bounded by MaxPromptTurns too.
	MaxTurns int
	// DisableLoopDetection turns every loop check off, the repeated calls
	// and text and the model's (settings' model.disableLoopDetection, as
	// Gemini CLI 0.61's getDisableLoopDetection).
	DisableLoopDetection bool
	// Memory is appended to the system prompt; none when nil.
	Memory MemorySource
	// Skills are the agent skills the system prompt lists (prompt.go),
	// read for every prompt; none when nil.
	Skills SkillSource
	// Sandboxed: the model's commands run in a sandbox, which the system
	// prompt then says, as Gemini CLI's does ("# Sandbox").
	Sandboxed bool
	// SystemPrompt defaults to DefaultSystemPrompt.
	SystemPrompt string
	// SystemPromptOverride: SystemPrompt is the user's own (0.61's
	// GEMINI_SYSTEM_MD file), used even when empty: it replaces the
	// built-in prompt and its sections (topic mandate, subagents, skills),
	// which it may bring back with ${AgentSkills}, ${SubAgents},
	// ${AvailableTools} and ${<tool>_ToolName}; the memory still ends it.
	SystemPromptOverride bool
	// ClientPrompt is the system prompt the front end's client gave the
	// session (ACP's systemPrompt): added after the agent's own, or in
	// the place of the built-in or GEMINI_SYSTEM_MD one with
	// approvalRules kept (basePrompt). The main agent's alone.
	ClientPrompt dialog.ClientPrompt
	// WriteSystemPrompt, when set, is the file every system instruction
	// is written to once made (0.61's GEMINI_WRITE_SYSTEM_MD).
	WriteSystemPrompt string
	// TopicNarration adds Gemini CLI 0.61's topic mandate to the system
	// prompt while update_topic is among the tools
	// (general.topicUpdateNarration).
	TopicNarration bool
	// Logger receives the api_request/api_response/api_error events; none
	// when nil.
	Logger *zap.Logger
	// Telemetry receives Gemini CLI 0.61's telemetry events (telemetry.go);
	// none when nil.
	Telemetry telemetry.Recorder
	// AuthType is logged with each response and error (Auth.Type).
	AuthType string
	// EditorKey: the API key is the one the user's editor keeps, so an
	// error about it names the editor's key (apierror.Context.EditorKey).
	EditorKey bool
	Retry     dialog.RetryPolicy
	// Thinking asks the model to include its thoughts.
	Thinking bool
	// Now is the clock for durations and log timestamps; time.Now when nil.
	Now func() time.Time
	// CompressionThreshold is the fraction of the token limit the prompt
	// may reach before the history is compressed (settings'
	// model.compressionThreshold); DefaultCompressionThreshold when 0.
	CompressionThreshold float64
	// TokenLimit overrides the model's context window, for a model or a
	// server with a smaller one than Gemini CLI knows (and for tests).
	TokenLimit int

	// Fallback from a Pro model that is out of quota (retry.go, fallback.go).

	// FallbackModel replaces a Pro model that is out of quota, for every
	// session from then on; when empty, the next in Gemini CLI 0.61's chain
	// (models.Fallback), none for a model outside one.
	FallbackModel string
	// Fallback says whether to switch to FallbackModel: ask the user (the
	// default), always, or never.
	Fallback FallbackMode
	// ThinkingBudget caps the tokens a thinking model may think with
	// (settings' model.thinkingBudget; 0 turns thinking off where the model
	// allows, -1 lets it decide); the model's default when nil.
	ThinkingBudget *int32

	// Subagents (subagent.go).

	// Agents are the subagents invoke_agent may hire; while it lists one,
	// the model is offered invoke_agent and told of them. None when nil.
	Agents AgentCatalog
	// Remote runs the catalogue's remote agents; they fail, saying so,
	// when nil.
	Remote RemoteInvoker
	// Version is gemini-ls's version, a subagent's ${cliVersion}.
	Version string
	// SubagentTools are tools only a subagent that names them gets, never
	// the main agent, nor "*" (cli_help's get_internal_docs: 0.61 gives
	// it as an instance in its toolConfig).
	SubagentTools []tools.Tool
	// Retention, when set, is which of the project's saved sessions are
	// removed once the first session is live (general.sessionRetention;
	// retention.go).
	Retention *sessionstore.Retention
	// RetentionOnce, shared by the agents of one process and project
	// (ACP's sessions, a rebuilt agent), runs that removal once; each
	// agent its own when nil.
	RetentionOnce *sync.Once
}

// Agent runs sessions against one model with one set of tools. Sessions
// run concurrently; each runs one prompt at a time.
type Agent struct {
	cfg Config
	log apiLog
	// fallback is the model every session uses after a fallback.
	fallback modelSwitch
	// offered is what the model is told of the tools, made once per
	// change of the tools (toolsCache).
	offered toolsCache
	// expiry removes old sessions once (retention.go).
	expiry expiry

	// mu guards cfg.ApprovalMode and the live sessions (sessions.go).
	mu       sync.Mutex
	sessions map[string]*Session
	uses     uint64 // prompts begun, to order sessions by use
	// closed are the ids of the sessions dropped to bound memory when
	// sessions are not saved: named again, each is said to be dropped.
	closed *bounded.Map[string, struct{}]
	// blanks are the sessions dropped to bound memory that held nothing
	// but their mode (Session.blank): named again, each comes back new
	// with its id, in its mode.
	blanks *bounded.Map[string, *blankSession]

	// sampling is a subagent's temperature, topP and thinking; nil for
	// the main agent. deadline bounds a subagent's run (nil: a timer), a
	// test's to choose when it ends.
	sampling *sampling
	deadline subagentDeadline
}

// New returns an Agent; cfg.Generator is required.
func New(cfg Config) *Agent {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	if cfg.SystemPrompt == "" && !cfg.SystemPromptOverride {
		cfg.SystemPrompt = DefaultSystemPrompt
	}
	if cfg.ApprovalMode == "" {
		cfg.ApprovalMode = dialog.ApprovalDefault
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Agents != nil {
		cfg.Tools = newWithAgents(cfg.Tools, cfg.Agents)
	}
	return &Agent{
		cfg:      cfg,
		log:      apiLog{log: cfg.Logger, authType: cfg.AuthType, now: cfg.Now},
		sessions: make(map[string]*Session),
		closed:   bounded.New[string, struct{}](maxClosed),
		blanks:   bounded.New[string, *blankSession](maxBlanks),
	}
}

// approvalMode is what the sessions' approval services read.
func (a *Agent) approvalMode() dialog.ApprovalMode {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cfg.ApprovalMode
}

// ApprovalMode is what runs without asking now.
func (a *Agent) ApprovalMode() dialog.ApprovalMode { return a.approvalMode() }

// SetApprovalMode changes what runs without asking, for every session,
// from the next call on: a mode a session chose for itself gives way.
func (a *Agent) SetApprovalMode(mode dialog.ApprovalMode) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.ApprovalMode = mode
	for _, s := range a.sessions {
		s.followAgent()
	}
	for _, b := range a.blanks.All() {
		b.mode, b.beforePlan = "", ""
	}
}

// MemorySource supplies the user's memory (the GEMINI.md files and the
// private MEMORY.md), which the session's first user content holds and
// later prompts update (memoryturn.go), and the paths the prompt tells
// the model to keep facts in; *memory.Loader satisfies it.
type MemorySource interface {
	SystemMemory(ctx context.Context) (string, error)
	// PrivateIndex is the private project memory's MEMORY.md, "" for none.
	PrivateIndex() string
	// GlobalFile is the global GEMINI.md, "" for none.
	GlobalFile() string
}

// systemInstruction is the system prompt of session sessionID with the
// enabled skills as they are now: read for every prompt, so that /skills
// counts from the next one. The memory is not in it (memoryturn.go): an
// edit of GEMINI.md leaves it, and the cache of every request, as it was. With WriteSystemPrompt it is written out too, as 0.61
// writes each system prompt it makes.
func (a *Agent) systemInstruction(ctx context.Context, sessionID string) string {
	system := a.basePrompt() + a.trackerProtocol(sessionID) + a.rootsNote() + a.sandboxNote()
	if a.cfg.WriteSystemPrompt != "" {
		if err := writeSystemPrompt(a.cfg.WriteSystemPrompt, system); err != nil {
			a.cfg.Logger.Warn("writing the system prompt (GEMINI_WRITE_SYSTEM_MD)", zap.Error(err))
		}
	}
	return system
}

// basePrompt is the system prompt before the roots and the memory: the
// user's own with its variables filled, else the built-in one with the
// sections that apply now.
func (a *Agent) basePrompt() string {
	client := a.cfg.ClientPrompt
	if a.cfg.SystemPromptOverride && !client.Override {
		return a.substitute(a.cfg.SystemPrompt) + clientAppended(client)
	}
	system := a.cfg.SystemPrompt
	if client.Override {
		// The client's instructions replace the agent's own, but never
		// what the model must know of the user's approvals.
		system = client.Text + "\n\n" + approvalRules
	}
	system += shellNote(a.cfg.Shell)
	if a.cfg.TopicNarration {
		if _, ok := a.cfg.Tools.Get(tools.UpdateTopicName); ok {
			system += "\n\n" + topicMandate
		}
	}
	if a.declares(tools.NavigateCodeName) {
		system += "\n\n" + codeIntelNote
	}
	if section := a.subagentsPrompt(); section != "" {
		system += "\n\n" + section
	}
	if section := a.skillsPrompt(); section != "" {
		system += "\n\n" + section
	}
	if section := a.memorySection(); section != "" {
		system += "\n\n" + section
	}
	return system + clientAppended(client)
}

// clientAppended is the client's system prompt in append mode, as the
// system prompt's last section; "" for none or an override.
func clientAppended(client dialog.ClientPrompt) string {
	if client.Override || strings.TrimSpace(client.Text) == "" {
		return ""
	}
	return "\n\n# Instructions from the editor\n\n" + client.Text
}

// declares reports whether the model is offered the tool called name.
func (a *Agent) declares(name string) bool {
	if a.cfg.Tools == nil {
		return false
	}
	_, ok := a.cfg.Tools.Get(name)
	return ok
}

func (a *Agent) subagentsPrompt() string {
	if _, ok := a.cfg.Tools.(*withAgents); ok && a.cfg.Agents != nil {
		return subagentsSection(a.cfg.Agents.Active())
	}
	return ""
}

func (a *Agent) skillsPrompt() string {
	if a.cfg.Skills == nil {
		return ""
	}
	return skillsSection(a.cfg.Skills.Enabled())
}

// sandboxPrompt is Gemini CLI 0.61's word for word (snippets.ts,
// renderSandbox, the "generic" mode).
const sandboxPrompt = "\n\n# Sandbox\nYou are running in a sandbox container with limited access to files outside the project directory or system temp directory, and with limited access to host system resources such as ports. If you encounter failures that could be due to sandboxing (e.g. if a command fails with 'Operation not permitted' or similar error), when you report the error to the user, also explain why you think it could be due to sandboxing, and how the user may need to adjust their sandbox configuration."

// sandboxNote tells the model its commands run sandboxed; "" when not.
func (a *Agent) sandboxNote() string {
	if !a.cfg.Sandboxed {
		return ""
	}
	return sandboxPrompt
}

// rootsNote tells the model the workspace's roots when there is more
// than one (--include-directories, /directory add: they may grow), as
// Gemini CLI tells it its workspace directories; "" for one root, which
// the prompt's relative paths already mean.
func (a *Agent) rootsNote() string {
	if a.cfg.Workspace == nil {
		return ""
	}
	roots := a.cfg.Workspace.Roots()
	if len(roots) < 2 {
		return ""
	}
	return "\n\n# Workspace directories\nThe workspace has these root directories; files in any of them can be read, searched and edited, and a relative path is the first one's:\n- " + strings.Join(roots, "\n- ")
}

// offeredTools are the tools as the model is told of them in mode, with
// plansDir as the plans directory in plan mode: made once for each mode
// and plans directory while the ToolSet's declarations stay the same
// slice. They are shared by every request: nobody may change them (a
// BeforeToolSelection hook's choice makes new ones). None without tools.
func (a *Agent) offeredTools(mode dialog.ApprovalMode, plansDir string) []*genai.Tool {
	if a.cfg.Tools == nil {
		return nil
	}
	decls := a.cfg.Tools.Declarations()
	c := &a.offered
	c.mu.Lock()
	defer c.mu.Unlock()
	c.renew(decls)
	key := toolsKey{mode: mode, plansDir: plansDir, todos: models.DeclaresWriteTodos(a.configuredModel())}
	if offered, ok := c.byMode[key]; ok {
		return offered
	}
	if len(c.byMode) >= maxToolSets {
		clear(c.byMode)
	}
	var offered []*genai.Tool
	if d := a.declarations(decls, mode, plansDir); len(d) > 0 {
		offered = []*genai.Tool{{FunctionDeclarations: d}}
	}
	c.byMode[key] = offered
	return offered
}

// toolsCache keeps what the agent made of one slice of the ToolSet's
// declarations: the tools offered in each mode, and plan mode's list of
// them, which were a good part of a request's cost when made for each.
type toolsCache struct {
	mu     sync.Mutex
	from   []*genai.FunctionDeclaration // what the rest was made of
	byMode map[toolsKey][]*genai.Tool
	// planTools is planInstruction's list of tools; planListed says it
	// was made.
	planTools  string
	planListed bool
}

// toolsKey is what the declarations of one slice vary with: deniedByPolicy
// reads the mode, and plan mode names its plans directory.
type toolsKey struct {
	mode     dialog.ApprovalMode
	plansDir string
	// todos: the configured model is offered write_todos (offers).
	todos bool
}

// maxToolSets bounds the modes and plans directories (one per session in
// plan mode) kept at once.
const maxToolSets = 16

// renew forgets what was made of another slice than decls; c.mu is held.
func (c *toolsCache) renew(decls []*genai.FunctionDeclaration) {
	if c.byMode != nil && sameSlice(decls, c.from) {
		return
	}
	c.from, c.byMode = decls, make(map[toolsKey][]*genai.Tool)
	c.planTools, c.planListed = "", false
}

// sameSlice reports whether a and b are the same slice. While c.from
// holds a slice, no other can be allocated where it is.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// declarations are decls as the model is told of them in mode, as
// Gemini CLI tells it (tool-registry.ts): enter_plan_mode only outside
// plan mode, exit_plan_mode only in plan mode, where the tools that edit
// files (write_file, replace: tools.Annotations) say they are for the
// plan alone, in plansDir; none that the policy excludes in mode
// (offered.go).
func (a *Agent) declarations(decls []*genai.FunctionDeclaration, mode dialog.ApprovalMode, plansDir string) []*genai.FunctionDeclaration {
	planning := mode == dialog.ApprovalPlan
	var out []*genai.FunctionDeclaration
	for _, d := range decls {
		switch {
		case d.Name == tools.EnterPlanModeName && planning, d.Name == tools.ExitPlanModeName && !planning:
			continue
		case !a.offers(d.Name, mode):
			continue
		case planning && a.annotations(d.Name).EditsFiles:
			plan := *d // the shared declaration stays as it is
			plan.Description = fmt.Sprintf("ONLY FOR PLANS: %s. You are currently in Plan Mode and may ONLY use this tool to write or update plans (.md files) in the plans directory: %s/. You cannot use this tool to modify source code directly.", d.Description, plansDir)
			d = &plan
		}
		out = append(out, d)
	}
	return slices.Clip(out)
}

// annotations are what tool name says it is; none when the agent has no
// such tool.
func (a *Agent) annotations(name string) tools.Annotations {
	if a.cfg.Tools == nil {
		return tools.Annotations{}
	}
	t, ok := a.cfg.Tools.Get(name)
	if !ok {
		return tools.Annotations{}
	}
	return tools.AnnotationsOf(t)
}

// generateConfig is what every model request of the agent carries, with
// system as the system instruction, for a session in mode whose plans
// directory is plansDir.
func (a *Agent) generateConfig(system string, mode dialog.ApprovalMode, plansDir string) *genai.GenerateContentConfig {
	cfg := a.answerConfig(system)
	cfg.Tools = a.offeredTools(mode, plansDir)
	return cfg
}

// answerConfig is generateConfig without tools: the settings' thinking and
// sampling, with system as the system instruction.
func (a *Agent) answerConfig(system string) *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(system, genai.RoleUser),
	}
	// Only models that think take a thinking config; gemini-2.0 and
	// earlier refuse the request that carries one.
	if thinks(a.activeModel()) && (a.cfg.Thinking || a.cfg.ThinkingBudget != nil) {
		cfg.ThinkingConfig = &genai.ThinkingConfig{
			IncludeThoughts: a.cfg.Thinking,
			ThinkingBudget:  a.cfg.ThinkingBudget,
		}
	}
	if s := a.sampling; s != nil {
		cfg.Temperature, cfg.TopP = s.temperature, s.topP
		if s.thinking != nil && thinks(a.activeModel()) {
			cfg.ThinkingConfig = s.thinking
		}
	}
	return cfg
}
