package setup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	geminils "github.com/gemini-ls/gemini-ls"
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/envredact"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/spawn"
	"github.com/gemini-ls/gemini-ls/internal/subagents/remote"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"

	"github.com/gemini-ls/gemini-ls/internal/subagents"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/checkpoint"
	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/codeassist"
	"github.com/gemini-ls/gemini-ls/internal/codeintel"
	"github.com/gemini-ls/gemini-ls/internal/codeintel/langclient"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/geminidir"
	"github.com/gemini-ls/gemini-ls/internal/hooks"
	"github.com/gemini-ls/gemini-ls/internal/memory"
	"github.com/gemini-ls/gemini-ls/internal/policy"
	"github.com/gemini-ls/gemini-ls/internal/protected"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/skills"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/tools/toolset"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Options is what a front end knows when it builds the agent.
type Options struct {
	Workspace *workspace.Workspace
	// Getenv and LookupEnv read the process environment (LookupEnv tells
	// a variable set to "" from an unset one; derived from Getenv when
	// nil); the .env file is layered under it here.
	Getenv    settings.Getenv
	LookupEnv settings.LookupEnv
	Version   string
	Logger    *zap.Logger
	// Warn tells the user of a problem that does not stop the build: the
	// LSP shows it in the editor, headless writes it to stderr.
	Warn func(what string, err error)
	// afterTrust, for tests, is called once the roots' trust is decided,
	// before anything they hold is read.
	afterTrust func()
	// ShowAuthURL tells the user to open authURL to sign in to the MCP
	// server; nil logs it as a warning (headless: on stderr).
	ShowAuthURL func(server, authURL string)

	// ShellRunner runs run_shell_command's commands; on this machine
	// when nil. ACP runs them in the client's terminal.
	ShellRunner dialog.CommandRunner
	// Sandbox is -s/--sandbox; nil when not given (the settings and
	// GEMINI_SANDBOX decide).
	Sandbox *bool
	// SandboxSupervisor is the program, with its arguments, that answers
	// sandbox.SupervisorArg (gemini-ls itself): given, a bubblewrap
	// sandbox runs the foreground shell commands in one persistent
	// sandbox per build, closed by Close; nil, each gets a bwrap of its
	// own.
	SandboxSupervisor []string
	// ClientPrompt is the system prompt the front end's client gave the
	// session (agent.Config.ClientPrompt); none when zero.
	ClientPrompt dialog.ClientPrompt
	// Diagnostics asks the user's editor for the diagnostics it shows:
	// get_diagnostics is offered, and edits tell the errors they brought,
	// only with it (the LSP, with a client that answers).
	Diagnostics dialog.DiagnosticsReader
	// CodeIntel asks the editor's own language servers, for
	// navigate_code and rename_symbol; nil when the editor cannot answer
	// (the LSP, with a client that declares
	// experimental.gemini.languageFeatures). Where it is nil, or has no
	// server for a file, gemini-ls starts one (codeIntel).
	CodeIntel codeintel.Provider

	// Overlay is the front end's settings, spelled as settings.json (the
	// LSP's initializationOptions), merged over every file.
	Overlay map[string]any
	// Change is the settings the front end changed since it started
	// (workspace/didChangeConfiguration), over Overlay; a model or an
	// approval mode it names wins over Model and ApprovalMode, as Reload
	// applies them. Rebuild sets it to the last change Reload applied.
	Change map[string]any
	// Unattended: nobody is there to ask (headless), which plan mode's
	// tools heed as Gemini CLI's non-interactive runs do.
	Unattended bool
	// Model and ApprovalMode are the front end's explicit choices (a flag,
	// initializationOptions); they win over the environment and settings.
	Model        string
	ApprovalMode dialog.ApprovalMode

	Retry dialog.RetryPolicy

	// IncludeDirectories are more roots, beyond the workspace's, from the
	// front end (run's --include-directories, an ACP client's
	// additionalDirectories); Build adds them after context.includeDirectories.
	IncludeDirectories []string

	// PolicyPaths and AdminPolicyPaths are the front end's policy files
	// or directories (run's --policy and --admin-policy); given, they
	// replace the settings' policyPaths and adminPolicyPaths.
	PolicyPaths, AdminPolicyPaths []string

	// Told is what the user has been told of once per process; a front
	// end that builds more than once (ACP, per session) shares one. nil:
	// once per Built.
	Told *Told
	// Transports are the model transports, one per credential, that a
	// front end's builds share (see auth.Transports); nil: each build's
	// generator has its own.
	Transports *auth.Transports

	// The command line's choices, as Gemini CLI's flags make them; each,
	// when given, replaces what the settings say. AllowedTools are
	// tools.allowed (--allowed-tools); AllowedMCPServers are mcp.allowed,
	// with mcp.excluded ignored (--allowed-mcp-server-names); Extensions
	// are the only extensions enabled, whatever their enablement, none
	// when it is ["none"] (-e).
	AllowedTools, AllowedMCPServers, Extensions []string

	// WithoutCredentials builds the whole agent even when there are no
	// credentials, its model calls failing with AuthErr: for a front end
	// that serves what needs no model meanwhile (the LSP's built-ins).
	// Otherwise such a build stops at AuthErr, before any MCP server or
	// discovery command is started for a front end that will only refuse.
	WithoutCredentials bool

	// Responses are Gemini CLI's --fake-responses,
	// --fake-responses-non-strict and --record-responses: the model's
	// answers read from a file, or recorded in one.
	Responses Responses

	// mcpSessionDisabled are the MCP servers the session turned off
	// (/mcp disable --session), which Rebuild carries over.
	mcpSessionDisabled []string
}

// Built is the agent and what it was built from.
type Built struct {
	// Agent is nil when AuthErr is set, unless Options.WithoutCredentials:
	// then its model calls fail with AuthErr, and what needs no model
	// still works.
	Agent *agent.Agent
	// AuthErr says why the model cannot be reached: missing or invalid
	// credentials, worded for the user.
	AuthErr error
	// Tools is nil when Agent is.
	Tools *toolset.Set
	// Sandbox is where the commands run on the model's behalf run; nil:
	// unsandboxed.
	Sandbox *sandbox.Sandbox
	// Door starts every program the build's sessions start (package
	// spawn): in Sandbox as each reason's rule says, a language server
	// that may run the workspace's code only with the user's yes.
	Door *spawn.Door
	// Redaction is security.environmentVariableRedaction: what the
	// commands run on the model's behalf do not get of the environment.
	Redaction envredact.Policy
	// Shell runs the commands run on the model's and the user's behalf
	// (run_shell_command, !command, !{…}) in Sandbox, found once (hooks
	// run in theirs, shellIn).
	Shell osshell.Shell
	// hostShell is this machine's shell (osshell.Local), found once:
	// Shell outside a container.
	hostShell osshell.Shell
	Settings  settings.Settings
	// Checkpoints are the project's checkpoints, for /restore; nil when
	// checkpointing is off.
	Checkpoints *checkpoint.Store
	// Policy is the policy files' rules, and what could not be loaded of
	// them (/policies list).
	Policy *policy.Engine
	// Getenv is the environment as the agent sees it: the process's,
	// then the .env file's (EnvFile, "" when none was found).
	Getenv  settings.Getenv
	EnvFile string
	// Model and ApprovalMode are what was chosen.
	Model        string
	ApprovalMode dialog.ApprovalMode
	// Plan is plan mode as the settings configure it; off (Enabled false)
	// when the sessions may not enter it.
	Plan tools.PlanOptions
	// plansDir finds a session's plans directory (agent.Config.PlansDir);
	// nil when plan mode is off.
	plansDir func(sessionID string) (string, error)
	// Trust says which roots are trusted folders, decided once, before
	// anything of a workspace is read; everything here takes its answer.
	Trust settings.Trust
	// Skills are the agent skills found (/skills); nil when settings turn
	// them off.
	Skills *skills.Catalog
	// Agents are the subagents found (/agents, invoke_agent); nil when
	// settings turn them off.
	Agents *subagents.Catalog
	// Hooks runs the hooks configured, and lists them (/hooks); nil when
	// hooksConfig.enabled is false.
	Hooks *hooks.Runner
	// remote runs the remote agents, and knows what their cards said
	// (/agents); nil when Agent is.
	remote *remoteAgents
	// Extensions are the user's installed extensions, enabled or not;
	// the enabled ones' servers and excludeTools are in Settings.
	Extensions extensions.Loaded
	// extensionsChanged: the installed extensions changed since the
	// build (ExtensionsChanged), which Stale reports.
	extensionsChanged atomic.Bool
	memory            *memory.Loader
	// generator reaches the model, as the agent does: completion asks it
	// too. nil when AuthErr is set.
	generator auth.ContentGenerator
	// completionStats are the front end's completion counts (completion.go).
	completionStats completionStats
	opts            Options
	// projectRoots are the workspace's roots as the front end gave them,
	// whose trust was decided and whose settings are read; the roots
	// added to them (includes) are neither.
	projectRoots []string
	includes     includes
	// telemetry is the settings' telemetry (telemetry.go); nil when
	// AuthErr is set.
	telemetry telemetry.Sink
	// langServers are the language servers gemini-ls starts for the
	// code-intelligence tools; nil where it starts none (codeintel.go).
	langServers *langclient.Manager
	// change is the settings changed since the front end started: the
	// last Reload's, else Options.Change; Rebuild builds with it.
	change map[string]any
}

// ErrOverlay wraps a front end's settings that cannot be used; the front
// end refuses them (an LSP client gets InvalidParams).
var ErrOverlay = errors.New("invalid settings")

// Load reads what Build reads first (the folder's trust, its .env, the
// settings, the extensions, the model and approval mode) and starts
// nothing: no agent, tools or MCP server. It is for what lists and exits
// (-l), which Gemini CLI answers before it initializes its config.
func Load(o Options) (*Built, error) {
	return load(defaults(o), nil)
}

// defaults is o with what it leaves out.
func defaults(o Options) Options {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Warn == nil {
		o.Warn = func(what string, err error) { o.Logger.Warn(what, zap.Error(err)) }
	}
	if o.Told == nil {
		o.Told = &Told{}
	}
	return o
}

// load is Load, the roots of distrust (trust.Recheck's) not trusted.
func load(o Options, distrust map[string]string) (*Built, error) {
	b := &Built{opts: o, projectRoots: o.Workspace.Roots()}
	// From the process environment alone: no .env has been read yet, and
	// none is read before its folder's trust is known.
	trust, err := settings.DecideTrust(o.Getenv, b.projectRoots)
	if err != nil {
		o.Warn("the trusted folders were not read, so no folder is trusted", err)
	}
	trust = trust.Distrusting(distrust)
	b.Trust = trust
	if o.afterTrust != nil {
		o.afterTrust()
	}
	b.Getenv, b.EnvFile = loadEnv(o, trust)
	base, err := b.loadSettings()
	if err != nil {
		return nil, err
	}
	changed, err := withOverlay(base, b.editorSettings(o.Change))
	if err != nil {
		return nil, err
	}
	b.Extensions = b.loadExtensions(changed)
	base, _ = b.Extensions.Apply(base)
	base = lockedMCP(base, nil)
	set, notes := b.Extensions.Apply(changed)
	for _, note := range notes {
		o.Warn("part of an extension is not used", note)
	}
	set = lockedMCP(o.commandLine(set), o.Warn)
	b.Settings = set
	b.includeDirectories(set)
	b.Plan, b.plansDir = b.planOptions(set)
	b.Model, b.ApprovalMode, err = b.choose(base, set, namesApprovalMode(o.Change))
	if err != nil {
		return nil, err
	}
	b.change = o.Change
	return b, nil
}

// build is Build's one attempt, the roots of distrust not trusted.
func build(ctx context.Context, o Options, distrust map[string]string) (*Built, error) {
	b, err := load(o, distrust)
	if err != nil {
		return nil, err
	}
	set := b.Settings
	system, err := b.isolate(ctx, set)
	if err != nil {
		return nil, err
	}
	creds, gen, ok, err := b.credentials()
	switch {
	case err != nil:
		b.Close()
		return nil, err
	case !ok:
		return b, nil
	}
	b.startMemory(set)
	p := agentParts{gen: gen, authType: creds.Type, editorKey: b.editorKey(creds), system: system, retry: b.retryPolicy(set)}
	b.Skills = b.discoverSkills(set)
	b.Agents = b.discoverAgents(ctx, set)
	b.Policy = b.loadPolicies(set, extensionPolicies(b.Extensions))
	if changed := b.Trust.Recheck(b.EnvFile); changed != nil {
		b.Close()
		return nil, &changedMeanwhile{roots: changed}
	}
	// Telemetry before the hooks, which tell it of each hook that runs.
	b.telemetry = b.startTelemetry(ctx, set, creds)
	b.Hooks = b.hooks(ctx, set)
	p.tracker = b.trackerDir(set)
	b.Tools = b.buildTools(ctx, set, p)
	p.keys, p.trusted = b.allowedTools(set)
	p.store, p.retention, p.maxTurns = b.sessionLimits(set)
	b.Checkpoints = b.checkpoints(b.opts, set)
	b.remote = newRemoteAgents(remote.Options{LookupEnv: b.lookupEnv})
	b.Agent = agent.New(b.agentConfig(set, p))
	return b, nil
}

// isolate settles what keeps the agent's commands in bounds (the
// environment's redaction, the shell, the sandbox) and reads the system
// prompt, telling what an untrusted folder's environment withheld.
func (b *Built) isolate(ctx context.Context, set settings.Settings) (systemPrompt, error) {
	r := set.Security.EnvironmentVariableRedaction
	b.Redaction = envredact.Policy{Enabled: r.Enabled, Allowed: r.Allowed, Blocked: r.Blocked}
	var err error
	if b.Sandbox, err = b.sandbox(ctx, set); err != nil {
		return systemPrompt{}, err
	}
	b.Door = spawn.NewDoor(spawn.Rules{Sandbox: b.Sandbox, SandboxServers: set.Tools.SandboxHooksAndMCPServers, Roots: b.opts.Workspace.Roots})
	b.hostShell = osshell.Local()
	b.Shell = shellIn(b.hostShell, b.Sandbox)
	system, err := loadSystemPrompt(b.Getenv, projectDir(b.projectRoots), b.Trust.Untrusted())
	if err != nil {
		return systemPrompt{}, err
	}
	b.tellUntrusted(system.withheld)
	return system, nil
}

// credentials are the settings' credentials and the generator that
// reaches the model with them. Without credentials, b.AuthErr says why,
// and ok is false unless the front end builds without them: then what
// needs no model (/help, /tools, /mcp) works, and a model call says why
// not. Replaying recorded answers (Options.Responses) needs none; a file
// of them that cannot be read is err.
func (b *Built) credentials() (creds auth.Auth, gen auth.ContentGenerator, ok bool, err error) {
	o := b.opts
	creds, authErr := resolveAuth(b.Settings.Security.Auth, b.Getenv)
	if o.Responses.Replay != "" {
		// Recorded answers need no credentials: the model is never asked.
		mode := auth.Strict
		if o.Responses.NonStrict {
			mode = auth.NonStrict
		}
		if gen, err = auth.NewReplay(o.Responses.Replay, mode); err != nil {
			return creds, nil, false, err
		}
		b.generator = o.Responses.recorded(gen, o.Warn)
		return creds, b.generator, true, nil
	}
	if authErr != nil {
		b.AuthErr = authErr
		return creds, auth.Unavailable(authErr), o.WithoutCredentials, nil
	}
	creds.Version = o.Version
	// The generator makes its client on the first prompt.
	gen = auth.NewGenerator(creds, auth.WithTransports(o.Transports),
		auth.WithWarn(func(err error) { o.Warn("the Google login was refreshed but not saved", err) }))
	b.generator = o.Responses.recorded(gen, o.Warn)
	return creds, b.generator, true, nil
}

// editorKey reports whether creds sign in with the API key the editor
// handed over (auth.EditorKeyVar, which the front end's environment
// still answers), read from the front end's environment, not the .env a
// workspace may write: an error about the key then names the editor's.
func (b *Built) editorKey(creds auth.Auth) bool {
	key := strings.TrimSpace(b.opts.Getenv(auth.EditorKeyVar))
	return creds.Type == auth.GeminiAPIKey && key != "" && key == creds.Config.APIKey
}

// Responses are where the model's answers come from, or go, besides the
// model: Gemini CLI's --fake-responses, --fake-responses-non-strict and
// --record-responses (auth.NewReplay, auth.NewRecorder).
type Responses struct {
	// Replay is a file of recorded answers that answer every model call
	// in the model's place, in order (auth.Strict), or with NonStrict the
	// first left of the call's kind; "" for the model.
	Replay    string
	NonStrict bool
	// Record is a file every answer is appended to; "" for none.
	Record string
}

// recorded is gen, its answers recorded when r says so; a line that
// could not be written is told to warn.
func (r Responses) recorded(gen auth.ContentGenerator, warn func(string, error)) auth.ContentGenerator {
	if r.Record == "" {
		return gen
	}
	return auth.NewRecorder(gen, r.Record, func(err error) { warn("a model answer was not recorded", err) })
}

// startMemory makes the memory loader, lets the model edit the global
// memory file, and sets the files the workspace ignores.
func (b *Built) startMemory(set settings.Settings) {
	o := b.opts
	b.memory = memory.New(memory.Config{
		Workspace:  o.Workspace,
		UserDir:    settings.UserDir(b.Getenv),
		FileNames:  set.Context.FileNames(),
		Trusted:    b.readsMemory,
		Extensions: extensionContext(b.Extensions),
		PrivateDir: privateMemoryDir(o.Workspace, settings.UserDir(b.Getenv), projectDir(b.projectRoots)),
		Logger:     o.Logger,
	})
	if global := b.memory.GlobalFile(); global != "" {
		// That one file, as Gemini CLI 0.61's isPathAllowed allows it:
		// the rest of ~/.gemini stays out of the file tools' reach.
		if _, err := o.Workspace.AllowFile(global); err != nil {
			o.Warn("the model cannot edit the global "+filepath.Base(global), err)
		}
	}
	o.Workspace.SetIgnoreFiles(ignoreFiles(set.Context.FileFiltering))
}

// agentParts are what Build makes on its way to the agent that Built
// does not keep.
type agentParts struct {
	gen       auth.ContentGenerator
	authType  string
	editorKey bool // the key is the one the editor handed over
	system    systemPrompt
	retry     dialog.RetryPolicy
	tracker   tools.TrackerDir
	keys      []string // the permission keys that run without asking
	trusted   []string // the tools that run without asking
	store     *sessionstore.Store
	retention *sessionstore.Retention
	maxTurns  int
}

// buildTools builds the tools: the built-in ones and the MCP servers'.
func (b *Built) buildTools(ctx context.Context, set settings.Settings, p agentParts) *toolset.Set {
	o := b.opts
	return toolset.Build(ctx, toolset.Config{
		Tools: tools.Options{
			Skills:      b.Skills,
			Plan:        b.Plan,
			Workspace:   o.Workspace,
			Utility:     agent.NewUtility(p.gen, p.retry),
			Memory:      b.memory,
			Shell:       tools.ShellOptions{Runner: o.ShellRunner, Inactivity: set.Tools.Shell.Inactivity(), Door: b.Door, Redaction: b.Redaction, Shell: b.Shell},
			Diagnostics: o.Diagnostics,
			Tracker:     p.tracker,
			CodeIntel:   b.codeIntel(set),
		},
		Settings:    set,
		Getenv:      b.Getenv,
		Version:     o.Version,
		Logger:      o.Logger,
		Warn:        o.Warn,
		ShowAuthURL: o.ShowAuthURL,
		NotTrusted:  b.NotTrusted(),

		MCPSessionDisabled: o.mcpSessionDisabled,
	})
}

// allowedTools are tools.allowed's permission keys and tools, which run
// without asking.
func (b *Built) allowedTools(set settings.Settings) (keys, trusted []string) {
	allowed := toolset.ParseAllowed(set.Tools.Allowed, set.MCPServers)
	for _, err := range allowed.Unsupported {
		b.opts.Warn("part of tools.allowed is not used", err)
	}
	keys, trusted = allowed.Keys, allowed.Tools
	for _, name := range allowed.Tools {
		if t, ok := b.Tools.Registry.Get(name); ok && tools.AnnotationsOf(t).EditsFiles {
			keys = append(keys, tools.EditKey) // edits are confirmed as one kind
		}
	}
	return keys, trusted
}

// sessionLimits are where sessions are saved (nil: they are not), how
// long they are kept, and how many turns one may take (0: no limit).
func (b *Built) sessionLimits(set settings.Settings) (*sessionstore.Store, *sessionstore.Retention, int) {
	o := b.opts
	store, err := OpenSessions(b.Getenv, firstRoot(b.projectRoots), o.Logger)
	if err != nil {
		o.Warn("sessions will not be saved", err)
	}
	retention, err := sessionRetention(set.General.SessionRetention)
	if err != nil {
		// 0.61 tells this to its debug log only, and removes nothing.
		o.Logger.Warn("Session cleanup disabled", zap.Error(err))
	}
	maxTurns := 0
	if !set.Model.UnlimitedTurns() {
		maxTurns = set.Model.MaxSessionTurns
	}
	return store, retention, maxTurns
}

// agentConfig is the agent's configuration, from what Build made.
func (b *Built) agentConfig(set settings.Settings, p agentParts) agent.Config {
	o := b.opts
	return agent.Config{
		Generator:            p.gen,
		Model:                b.Model,
		Tools:                b.Tools.Registry,
		Workspace:            o.Workspace,
		Resources:            mcpResources{b.Tools},
		NoReferenceSearch:    !set.Context.FileFiltering.SearchesReferences(),
		Store:                p.store,
		Memory:               b.memory,
		Skills:               b.skillSource(),
		Agents:               b.agentSource(),
		Remote:               b.remote,
		Version:              o.Version,
		SubagentTools:        []tools.Tool{tools.NewGetInternalDocs(geminils.Docs())},
		Landed:               b.landed(),
		Diagnostics:          b.editDiagnostics(),
		Checkpointer:         b.checkpointer(),
		Hooks:                b.hookRunner(),
		ApprovalMode:         b.ApprovalMode,
		PlansDir:             b.plansDir,
		ModelConfigs:         b.modelConfigs(set),
		ProjectTempDir:       projectTempDir(settings.UserDir(b.Getenv), firstRoot(b.projectRoots)),
		SessionContext:       true,
		DirectoryTree:        set.Context.DrawsDirectoryTree(),
		ToolOutputThreshold:  set.Tools.ToolOutputThreshold(),
		NoPlanRouting:        !set.General.Plan.RoutesByMode(),
		Untrusted:            b.NotTrusted() != nil,
		Sandboxed:            b.Sandbox.Enabled(),
		AllowedKeys:          p.keys,
		TrustedTools:         p.trusted,
		Policy:               b.Policy,
		Shell:                b.Shell.Kind,
		AlwaysAllow:          b.alwaysAllow(set),
		Protected:            b.protectedFiles(set),
		ProjectRoots:         b.projectRoots,
		MaxTurns:             p.maxTurns,
		DisableLoopDetection: set.Model.DisableLoopDetection,
		Logger:               o.Logger,
		AuthType:             p.authType,
		EditorKey:            p.editorKey,
		Telemetry:            b.telemetry,
		Retry:                p.retry,
		Thinking:             true,
		Retention:            p.retention,
		RetentionOnce:        o.Told.expiry(firstRoot(b.projectRoots)),

		SystemPrompt:         p.system.override,
		SystemPromptOverride: p.system.overridden,
		WriteSystemPrompt:    p.system.writeTo,
		ClientPrompt:         o.ClientPrompt,

		TopicNarration: set.TopicNarration(),
		TrackerDir:     p.tracker,

		CompressionThreshold: set.Model.EffectiveCompressionThreshold(),
		ThinkingBudget:       thinkingBudget(set.ThinkingBudgetFor(b.Model)),
	}
}

// hooks runs the hooks the settings configure, then the enabled
// extensions'; nil when hooksConfig.enabled is false. The settings hold
// no workspace's hooks unless its folder is trusted (settings.Load).
func (b *Built) hooks(ctx context.Context, set settings.Settings) *hooks.Runner {
	o := b.opts
	if !set.HooksConfig.HooksEnabled() {
		return nil
	}
	b.announceProjectHooks(ctx, set)
	sources := []hooks.Source{{Name: "settings", Hooks: set.Hooks}}
	for _, e := range b.Extensions.Active() {
		h, err := e.Hooks()
		if err != nil {
			o.Warn("an extension's hooks do not run", err)
			continue
		}
		if len(h) > 0 {
			sources = append(sources, hooks.Source{Name: e.Name, Hooks: h})
		}
	}
	dir := ""
	if roots := o.Workspace.Roots(); len(roots) > 0 {
		dir = roots[0]
	}
	r, problems := hooks.New(hooks.Config{
		Shell:      shellIn(b.hostShell, b.serverSandbox(set)),
		Door:       b.Door,
		Redaction:  b.Redaction,
		Sources:    sources,
		Disabled:   set.HooksConfig.Disabled,
		ProjectDir: dir,
		Logger:     o.Logger,
		Telemetry:  b.telemetry,
	})
	for _, err := range problems {
		o.Warn("a hook does not run", err)
	}
	return r
}

// announceProjectHooks warns of the trusted roots' own hooks the user has
// not been told of, in Gemini CLI 0.61's words, before they can run: a
// hook a pull or a command put in a project's settings is not run
// unannounced (hooks.NoteProjectHooks, which lists them as 0.61 does).
func (b *Built) announceProjectHooks(ctx context.Context, set settings.Settings) {
	path := hooks.TrustedHooksPath(settings.UserDir(b.Getenv))
	for _, p := range set.ProjectHooks() {
		unseen, err := hooks.NoteProjectHooks(ctx, path, p.Root, p.Hooks)
		if len(unseen) > 0 {
			var list strings.Builder
			for _, name := range unseen {
				fmt.Fprintf(&list, "\n  - %s", name)
			}
			b.opts.Warn(ProjectHooksAnnounced, fmt.Errorf("The following project-level hooks have been detected in this workspace (%s):%s\n\nThese hooks will be executed. If you did not configure these hooks or do not trust this project, please review the project settings (%s) and remove them.",
				p.Root, list.String(), configfiles.ProjectSettings(p.Root)))
		}
		if err != nil {
			b.opts.Warn("the project hooks announced were not recorded", err)
		}
	}
}

// hookRunner is b.Hooks as the agent takes it: none when no hook is
// configured (enabled or not), and no interface holding a nil runner.
func (b *Built) hookRunner() agent.Hooks {
	if b.Hooks == nil || b.Hooks.Empty() {
		return nil
	}
	return b.Hooks
}

// ReloadHooks has the hooks take hooksConfig.disabled as the settings
// say now (/hooks enable and disable), from the next event of every
// session.
func (b *Built) ReloadHooks() error {
	if b.Hooks == nil {
		return errors.New("hooks are off: hooksConfig.enabled is false in the settings (a change to it takes effect when gemini-ls starts again)")
	}
	set, err := b.loadSettings()
	if err != nil {
		return err
	}
	b.Hooks.SetDisabled(set.HooksConfig.Disabled)
	// What Reload compares the next settings with: they are applied.
	b.Settings.HooksConfig.Disabled = set.HooksConfig.Disabled
	return nil
}

// planOptions are plan mode's tools as settings configure them, and how
// a session finds its plans directory: off when general.plan.enabled is
// false. A general.plan.directory that is not inside the project, or
// leads out of it through a symlink, is not used: as Gemini CLI does
// (Config.initialize), the user is warned and each session plans in its
// own directory instead.
func (b *Built) planOptions(set settings.Settings) (tools.PlanOptions, func(string) (string, error)) {
	roots := b.opts.Workspace.Roots()
	if !set.General.Plan.PlanEnabled() || len(roots) == 0 {
		return tools.PlanOptions{}, nil
	}
	opts := tools.PlanOptions{Enabled: true, Unattended: b.opts.Unattended}
	sessions := sessionPlansDir(settings.UserDir(b.Getenv), roots[0])
	custom := func(string) (string, error) { return projectPlansDir(set.General.Plan, roots[0]) }
	switch dir, err := custom(""); {
	case err != nil:
		b.opts.Warn("the custom plans directory is not used", fmt.Errorf("%w; each session plans in its own directory instead", err))
		return opts, sessions
	case dir == "":
		return opts, sessions
	}
	return opts, custom
}

// projectPlansDir is the plans directory general.plan.directory names in
// the project at root, with its symlinks resolved; "" when it names none.
// Where it really lies must be inside root, as Gemini CLI requires
// (Storage.getPlansDir): a symlink out of the project (to ~/.gemini, say)
// would make what it leads to the plan mode's to read and write. It is
// checked again each time a session finds it, as the directory may have
// changed since.
func projectPlansDir(plan settings.Plan, root string) (string, error) {
	dir, err := plan.PlansDir(root)
	if err != nil || dir == "" {
		return "", err
	}
	real, err := workspace.RealPath(dir)
	if err != nil {
		return "", fmt.Errorf("general.plan.directory %q: %w", plan.Directory, err)
	}
	if !workspace.Within(root, real) {
		return "", fmt.Errorf("general.plan.directory %q resolves to %s, which is outside the project root %s", plan.Directory, real, root)
	}
	return real, nil
}

// projectTempDir finds the project's temporary directory where Gemini
// CLI keeps it (Storage.getProjectTempDir), ~/.gemini/tmp/<project>,
// claimed on first use as Gemini CLI claims it.
func projectTempDir(geminiDir, root string) func() (string, error) {
	return func() (string, error) {
		if root == "" {
			return "", errors.New("the workspace has no root")
		}
		dirs, err := geminidir.New(geminiDir, root)
		if err != nil {
			return "", err
		}
		tmp, err := dirs.FindOrClaim()
		if err != nil {
			return "", fmt.Errorf("finding the project's directory in %s: %w", geminiDir, err)
		}
		return tmp, nil
	}
}

// sessionPlansDir finds a session's plans directory where Gemini CLI
// keeps it (Storage.getProjectTempPlansDir): in the project's temporary
// directory, ~/.gemini/tmp/<project>/<session id>/plans, claimed on
// first use as Gemini CLI claims it.
func sessionPlansDir(geminiDir, root string) func(string) (string, error) {
	return func(sessionID string) (string, error) {
		if sessionID == "" || sessionID != filepath.Base(sessionID) || sessionID == "." || sessionID == ".." {
			return "", fmt.Errorf("the session id %q cannot name a directory", sessionID)
		}
		tmp, err := projectTempDir(geminiDir, root)()
		if err != nil {
			return "", err
		}
		return filepath.Join(tmp, sessionID, "plans"), nil
	}
}

// privateMemoryDir finds the project's private memory where Gemini CLI
// 0.61 keeps it (Storage.getProjectMemoryTempDir): ~/.gemini/tmp/
// <project>/memory, the project's directory claimed as Gemini CLI claims
// it on start, since the model is told the path to write there. The
// directory is made reachable by the file tools, with the global
// GEMINI.md, as 0.61's isPathAllowed allows them (edits there are still
// asked about: they are under .gemini, internal/protected). nil without
// a home.
func privateMemoryDir(ws *workspace.Workspace, geminiDir, root string) func() (string, error) {
	if geminiDir == "" || root == "" {
		return nil
	}
	projectTemp := projectTempDir(geminiDir, root)
	return func() (string, error) {
		tmp, err := projectTemp()
		if err != nil {
			return "", err
		}
		dir := filepath.Join(tmp, "memory")
		if _, err := ws.Allow(dir); err != nil {
			return "", fmt.Errorf("opening the private memory to the file tools: %w", err)
		}
		return dir, nil
	}
}

// trackerDir finds a session's task tracker directory where Gemini CLI
// 0.61 keeps it (Storage.getProjectTempTrackerDir): beside its plans,
// ~/.gemini/tmp/<project>/<session id>/tracker; nil while
// experimental.taskTracker is off, which leaves the tracker's tools out.
func (b *Built) trackerDir(set settings.Settings) tools.TrackerDir {
	roots := b.opts.Workspace.Roots()
	if !set.Experimental.TaskTracker || len(roots) == 0 {
		return nil
	}
	plans := sessionPlansDir(settings.UserDir(b.Getenv), roots[0])
	return func(sessionID string) (string, error) {
		dir, err := plans(sessionID)
		if err != nil {
			return "", err
		}
		return filepath.Join(filepath.Dir(dir), "tracker"), nil
	}
}

// checkpoints is the project's checkpoint store when settings enable
// checkpointing (general.checkpointing.enabled), else nil; as Gemini
// CLI, it needs git, and one root: the first.
func (b *Built) checkpoints(o Options, set settings.Settings) *checkpoint.Store {
	if !set.General.Checkpointing.Enabled {
		return nil
	}
	roots := o.Workspace.Roots()
	if len(roots) == 0 {
		return nil
	}
	if _, err := spawn.LookPath("git"); err != nil {
		o.Warn("checkpointing is off", fmt.Errorf("general.checkpointing.enabled needs git, which was not found: %w", err))
		return nil
	}
	store, err := checkpoint.New(settings.UserDir(b.Getenv), roots[0], o.Workspace.Documents(), b.Door)
	if err != nil {
		o.Warn("checkpointing is off", err)
		return nil
	}
	return store
}

// checkpointer is b.Checkpoints as the agent takes it: no interface
// holding a nil store.
func (b *Built) checkpointer() agent.Checkpointer {
	if b.Checkpoints == nil {
		return nil
	}
	return b.Checkpoints
}

// resolveAuth is auth.Resolve of the selected type, refused first when
// another type is enforced (security.auth.enforcedType), as 0.61 checks.
func resolveAuth(a settings.Auth, getenv settings.Getenv) (auth.Auth, error) {
	if err := auth.CheckEnforced(a.EnforcedType, a.SelectedType, getenv); err != nil {
		return auth.Auth{}, err
	}
	return auth.Resolve(a.SelectedType, getenv)
}

// lockedMCP is set with admin.mcp applied to its MCP servers; warn, when
// not nil, is told what was left out and put in, in 0.61's words.
func lockedMCP(set settings.Settings, warn func(string, error)) settings.Settings {
	set, res := set.WithAdminMCP()
	if warn == nil {
		return set
	}
	if len(res.Blocked) > 0 {
		warn("MCP servers not used", errors.New(settings.AdminBlockedMCPMessage(res.Blocked)))
	}
	if len(res.Required) > 0 {
		warn("MCP servers added", errors.New(settings.AdminRequiredMCPMessage(res.Required)))
	}
	return set
}

// loadEnv is the environment with the .env file Gemini CLI would load
// under it: the first .gemini/.env or .env from the first root upward,
// else the user's; all of it only when trust says the first root is a
// trusted folder, else only the auth variables.
func loadEnv(o Options, trust settings.Trust) (settings.Getenv, string) {
	lookup := o.LookupEnv
	if lookup == nil {
		lookup = func(name string) (string, bool) {
			v := o.Getenv(name)
			return v, v != ""
		}
	}
	roots := o.Workspace.Roots()
	if len(roots) == 0 {
		return o.Getenv, ""
	}
	// The settings that say which .env is read and what it may set are
	// read without it, as 0.61's loadEnvironment reads them; their
	// problems are told when the settings are read for use.
	pre, _ := settings.Load(o.Getenv, roots, trust)
	// A .env a sandboxed command made, whose gemini-ls runs beside this
	// one or died before it looked, is moved aside before it is read.
	sandbox.MoveAsideWatched(sandboxWatchDir(o.Getenv), func(msg string) {
		o.Warn("a file a sandboxed command made was moved aside", errors.New(msg))
	})
	getenv, path, err := settings.LoadDotenv(lookup, settings.DotenvOptions{
		Dir:             roots[0],
		Trusted:         trust.Trusted(roots[0]),
		ExcludedEnvVars: pre.Advanced.ExcludedEnvVars,
		IgnoreLocalEnv:  pre.Advanced.IgnoreLocalEnv,
	})
	if err != nil {
		o.Warn("the .env file was not read", err)
	}
	return getenv, path
}

// Memory is the loader of the context files (GEMINI.md) the agent reads;
// nil when AuthErr is set.
func (b *Built) Memory() *memory.Loader { return b.memory }

// AuthStatus says which auth mode is chosen, why, and what is missing,
// never a secret: for gemini/authStatus.
func (b *Built) AuthStatus() auth.Report {
	return auth.Status(b.Settings.Security.Auth.SelectedType, b.Getenv)
}

// CodeAssist is the Code Assist client the model's requests go through,
// made now if none was yet (/privacy and /upgrade read the account's
// tier and settings there); ok is false when the auth type does not use
// Code Assist, or nothing was built for want of credentials (AuthErr).
func (b *Built) CodeAssist(ctx context.Context) (client *codeassist.Client, ok bool, err error) {
	if b.generator == nil {
		return nil, false, nil
	}
	return auth.CodeAssistClient(ctx, b.generator)
}

// loadSettings reads the settings files, then the front end's overlay
// over them. The extensions' servers and excludeTools go under them
// (Extensions.Apply), Gemini CLI's lowest layer.
func (b *Built) loadSettings() (settings.Settings, error) {
	o := b.opts
	set, err := settings.Load(b.Getenv, b.projectRoots, b.Trust)
	if err = b.untrustedSettingsToldOnce(err); err != nil {
		o.Warn("some settings were not read", err)
	}
	for _, err := range o.Told.unread(set.UnreadKeys()) {
		o.Warn(UnreadSettings, err)
	}
	return withOverlay(set, b.editorSettings(o.Overlay))
}

// loadExtensions reads the user's installed extensions, as set's
// security allows, each one that cannot be used reported once, by name;
// none when admin.extensions.enabled is false, as 0.61's loadExtensions
// (which says nothing: gemini-ls says why the installed ones are unused).
func (b *Built) loadExtensions(set settings.Settings) extensions.Loaded {
	sec := set.Security
	var ws string
	if roots := b.opts.Workspace.Roots(); len(roots) > 0 {
		ws = roots[0]
	}
	loaded := extensions.Load(extensions.Config{
		UserDir:   settings.UserDir(b.Getenv),
		Workspace: ws,
		Getenv:    b.Getenv,
		Allowed:   sec.AllowedExtensions,
		BlockGit:  sec.BlockGitExtensions,
		Only:      b.opts.Extensions,
	})
	if !set.Admin.Extensions.On() {
		if len(loaded.All) > 0 {
			b.opts.Warn("the installed extensions are not used", errors.New(settings.AdminDisabledMessage("Extensions")))
		}
		return extensions.Loaded{}
	}
	for _, err := range loaded.Errs {
		b.opts.Warn("an extension was not loaded", err)
	}
	for _, err := range notInstalled(b.opts.Extensions, loaded) {
		b.opts.Warn("an extension -e names is not used", err)
	}
	return loaded
}

// extensionPolicies are the enabled extensions' policies directories,
// the policy engine's extension tier.
func extensionPolicies(loaded extensions.Loaded) []policy.Source {
	var out []policy.Source
	for _, e := range loaded.Active() {
		out = append(out, policy.Source{Tier: policy.TierExtension, Path: e.PoliciesDir(), Extension: e.Name})
	}
	return out
}

// extensionSkills are the enabled extensions' skills directories, the
// lowest tier of agent skills.
func extensionSkills(loaded extensions.Loaded) []skills.ExtensionDir {
	var out []skills.ExtensionDir
	for _, e := range loaded.Active() {
		out = append(out, skills.ExtensionDir{Extension: e.Name, Dir: e.SkillsDir(), Hydrate: e.Hydrate})
	}
	return out
}

// extensionContext is the enabled extensions' context files, for the
// memory loader.
func extensionContext(loaded extensions.Loaded) []memory.ExtensionFiles {
	var out []memory.ExtensionFiles
	for _, e := range loaded.Active() {
		out = append(out, memory.ExtensionFiles{Dir: e.Path, Files: e.ContextFiles})
	}
	return out
}

// withOverlay is set with overlay over it; an overlay that cannot be used
// is an error wrapping ErrOverlay.
func withOverlay(set settings.Settings, overlay map[string]any) (settings.Settings, error) {
	out, err := set.With(overlay)
	if err != nil {
		return set, fmt.Errorf("%w: %v", ErrOverlay, err)
	}
	return out, nil
}

// NotTrusted is why the workspace is not a trusted folder: the first
// untrusted root's reason; nil when every root is trusted. While it is
// set, only the default approval mode may be chosen, as in Gemini CLI.
func (b *Built) NotTrusted() error {
	if untrusted := b.Trust.Untrusted(); len(untrusted) > 0 {
		return b.Trust.Why(untrusted[0])
	}
	return nil
}

// choose picks the model and the approval mode: the front end's explicit
// choice, unless a later change of settings (in set but not in base, the
// settings before it) names another, or modeNamed says the change names
// the approval mode (even the one base has); then GEMINI_MODEL, as Gemini
// CLI ranks it; then settings. As in Gemini CLI, a workspace that is not
// a trusted folder runs in the default approval mode whatever was asked,
// and the user is told why; yolo where security.disableYoloMode is set is
// dialog.ErrYoloDisabled.
func (b *Built) choose(base, set settings.Settings, modeNamed bool) (string, dialog.ApprovalMode, error) {
	o := b.opts
	model, mode := o.Model, string(o.ApprovalMode)
	if set.Model.Name != base.Model.Name {
		model = set.Model.Name
	}
	if modeNamed || set.General.DefaultApprovalMode != base.General.DefaultApprovalMode {
		mode = set.General.DefaultApprovalMode
	}
	model = cmp.Or(model, strings.TrimSpace(b.Getenv("GEMINI_MODEL")), set.Model.Name, agent.DefaultModel)
	mode = cmp.Or(mode, set.General.DefaultApprovalMode, string(dialog.ApprovalDefault))
	if mode == string(dialog.ApprovalYolo) && set.Admin.SecureModeEnabled {
		return "", "", dialog.ErrYoloSecureMode
	}
	if mode == string(dialog.ApprovalYolo) && set.Security.DisableYoloMode {
		return "", "", dialog.ErrYoloDisabled
	}
	if mode == string(dialog.ApprovalPlan) && !b.Plan.Enabled {
		b.opts.Warn("plan mode is off", errors.New(`the approval mode is "default", not "plan": general.plan.enabled is false in the settings`))
		mode = string(dialog.ApprovalDefault)
	}
	if why := b.NotTrusted(); why != nil && mode != string(dialog.ApprovalDefault) {
		b.opts.Warn("untrusted folder", fmt.Errorf(`the approval mode is "default", not %q: as in Gemini CLI, `+
			"a folder that is not trusted runs in the default approval mode until you trust it: %w", mode, why))
		mode = string(dialog.ApprovalDefault)
	}
	return model, dialog.ApprovalMode(mode), nil
}

// Reload reads the settings again with change (the settings a client sent
// in workspace/didChangeConfiguration) over them, and applies what can
// change while sessions run: the model and the approval mode, from the
// next request on, and hooksConfig.disabled, from the next event; an
// approval mode the change names reaches every session, also one that
// switched itself. It returns what it applied, and the settings that
// changed but take effect only when the server starts again (the tools,
// MCP servers, memory files, auth, limits). A change that cannot be used
// is an error wrapping ErrOverlay, and nothing is applied.
func (b *Built) Reload(change map[string]any) (applied, restart []string, err error) {
	// The files are read once: base is what the change goes over.
	base, err := b.loadSettings()
	if err != nil {
		return nil, nil, err
	}
	base, _ = b.Extensions.Apply(base)
	set, err := withOverlay(base, b.editorSettings(change))
	if err != nil {
		return nil, nil, err
	}
	set = lockedMCP(set, nil)
	modeNamed := namesApprovalMode(change)
	model, mode, err := b.choose(base, set, modeNamed)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrOverlay, err)
	}
	if b.Agent != nil {
		if model != b.Model {
			b.SetModel(context.Background(), model)
			applied = append(applied, "model "+model)
		}
		// A mode the change names is every session's, also one that
		// switched itself (into plan mode) while the agent's stayed.
		if mode != b.ApprovalMode || modeNamed {
			b.Agent.SetApprovalMode(mode)
			applied = append(applied, "approval mode "+mode.Name()) // as its users read it
		}
	}
	b.Model, b.ApprovalMode = model, mode
	old := b.Settings
	// hooksConfig.disabled applies at once, as /hooks applies it.
	if b.Hooks != nil && !slices.Equal(old.HooksConfig.Disabled, set.HooksConfig.Disabled) {
		b.Hooks.SetDisabled(set.HooksConfig.Disabled)
		applied = append(applied, "hooksConfig.disabled")
	}
	for _, c := range []struct {
		key     string
		changed bool
	}{
		{"tools", !reflect.DeepEqual(old.Tools, set.Tools)},
		{"mcpServers", !reflect.DeepEqual(old.MCPServers, set.MCPServers)},
		{"hooks", !reflect.DeepEqual(old.Hooks, set.Hooks) || !reflect.DeepEqual(old.HooksConfig.Enabled, set.HooksConfig.Enabled)},
		{"context", !reflect.DeepEqual(old.Context, set.Context)},
		{"security", !reflect.DeepEqual(old.Security, set.Security)},
		{"model.maxSessionTurns", old.Model.MaxSessionTurns != set.Model.MaxSessionTurns},
		{"model.compressionThreshold", old.Model.CompressionThreshold != set.Model.CompressionThreshold},
		{"model.disableLoopDetection", old.Model.DisableLoopDetection != set.Model.DisableLoopDetection},
		{"model.thinkingBudget", !reflect.DeepEqual(old.ThinkingBudgetFor(model), set.ThinkingBudgetFor(model)) || !reflect.DeepEqual(old.ModelConfigs, set.ModelConfigs)},
	} {
		if c.changed {
			restart = append(restart, c.key)
		}
	}
	b.Settings, b.change = set, change
	return applied, restart, nil
}

// ReloadMCP reads the MCP servers again, as the settings files, the
// front end's settings and changes, the command line and the extensions
// now give them, and starts them anew (toolset.Set.ReloadMCP): a server
// added to settings.json is connected and a removed one ended, in the
// same session, and the next model request offers their tools. It
// returns once each has listed its tools or failed, or when ctx ends.
func (b *Built) ReloadMCP(ctx context.Context) error {
	base, err := b.loadSettings()
	if err != nil {
		return err
	}
	set, err := withOverlay(base, b.editorSettings(b.change))
	if err != nil {
		return err
	}
	set, _ = b.loadExtensions(set).Apply(set)
	set = lockedMCP(b.opts.commandLine(set), b.opts.Warn)
	if err := b.Tools.ReloadMCP(ctx, set.MCPServers); err != nil {
		return err
	}
	b.Settings.MCPServers = set.MCPServers
	return nil
}

// namesApprovalMode reports whether change, settings a client sent,
// names the approval mode (general.defaultApprovalMode): a front end's
// choice of it, as Gemini CLI's Shift+Tab is.
func namesApprovalMode(change map[string]any) bool {
	general, _ := change["general"].(map[string]any)
	_, named := general["defaultApprovalMode"]
	return named
}

// Rebuild builds the agent again from the same options and the settings
// the last Reload changed, reading the settings, the environment's files,
// the credentials and the folders' trust anew: after a sign-in, the agent
// that had none; after the folders' trust changed, one that reads what
// the workspace brings. What /stats shows of completion, and the MCP
// servers the session turned off, carry over. The caller closes b once
// nothing uses it.
func (b *Built) Rebuild(ctx context.Context) (*Built, error) {
	o := b.opts
	o.Change = b.change
	o.mcpSessionDisabled = b.Tools.MCPSessionDisabledNames()
	fresh, err := Build(ctx, o)
	if err != nil {
		return nil, err
	}
	fresh.completionStats.Store(b.completionStats.Load())
	return fresh, nil
}

// Close runs the sessions' SessionEnd hooks, then stops what the tools
// run in the background (MCP servers, the discovery command) and the
// persistent sandbox, and lets go of the model's transport. It is safe
// on a nil Built.
func (b *Built) Close() {
	if b == nil {
		return
	}
	if b.Agent != nil {
		// The SessionEnd hooks are bounded by their own timeouts.
		b.Agent.Close(context.Background())
	}
	b.Tools.Close()
	// The persistent sandbox ends once its last command did; a bwrap
	// left idle would otherwise live as long as gemini-ls.
	_ = b.Sandbox.Close()
	b.closeLangServers()
	b.closeTelemetry()
	// The model's connections: closed now unless another build of the
	// front end's shares them, not left to the idle timeout.
	auth.CloseGenerator(b.generator)
}

func thinkingBudget(n *int) *int32 {
	if n == nil {
		return nil
	}
	v := int32(*n)
	return &v
}

// Workspace is the workspace the agent works in.
func (b *Built) Workspace() *workspace.Workspace { return b.opts.Workspace }

// Version is gemini-ls's version, as the front end gave it.
func (b *Built) Version() string { return b.opts.Version }

// firstRoot is the project sessions are filed under, as the agent files
// them: the first root.
func firstRoot(roots []string) string {
	if len(roots) == 0 {
		return ""
	}
	return roots[0]
}

// sandbox is the sandbox the command line, the environment and set ask
// for, as Gemini CLI 0.61 resolves them; an error when the one asked for
// cannot be set up: nothing then runs unsandboxed.
func (b *Built) sandbox(ctx context.Context, set settings.Settings) (*sandbox.Sandbox, error) {
	cfg, err := sandbox.Resolve(ctx, sandbox.Request{
		Flag:           b.opts.Sandbox,
		Setting:        set.Tools.Sandbox,
		AllowedPaths:   set.Tools.SandboxAllowedPaths,
		NetworkAccess:  set.Tools.SandboxNetworkAccess,
		AllowedSockets: set.Tools.SandboxAllowedSockets,
		ToolSandboxing: set.Security.ToolSandboxing,
		Getenv:         b.Getenv,
	}, sandbox.HostEnv())
	if err != nil || cfg == nil {
		return nil, err
	}
	cfg.Redaction = b.Redaction
	cfg.Supervisor = b.opts.SandboxSupervisor
	// The .env files loadEnv looks for: a command must not plant one the
	// next start reads outside the sandbox.
	cfg.StartupFiles = settings.DotenvCandidates(firstRoot(b.opts.Workspace.Roots()), settings.Home(b.Getenv))
	cfg.Warn = func(msg string) { b.opts.Warn("a file a sandboxed command made was moved aside", errors.New(msg)) }
	for _, p := range protected.XDGConfig(b.Getenv("XDG_CONFIG_HOME")) {
		cfg.UserConfig = append(cfg.UserConfig, p.Path)
	}
	cfg.WatchDir = sandboxWatchDir(b.opts.Getenv)
	cfg.Trail = settings.SandboxTrail(b.opts.Getenv)
	// The policy is loaded after the sandbox (build), before any command
	// runs: each asks it then.
	cfg.DeniedPrograms = func() []string { return b.Policy.DeniedPrograms() }
	cfg.OpenInEditor = func(path string) bool {
		_, open := b.opts.Workspace.Documents().Get(path)
		return open
	}
	return sandbox.New(*cfg, b.opts.Workspace.Roots, settings.SystemHome(b.Getenv), settings.UserDir(b.Getenv))
}

// sandboxWatchDir is where sandboxes record the start-up files they
// watch: in gemini-ls's state directory (beside its sessions), from the
// process's environment, which a .env does not change; "" when there is
// none.
func sandboxWatchDir(getenv settings.Getenv) string {
	if state := sessionstore.StateDir(getenv); state != "" {
		return filepath.Join(state, "sandbox-watch")
	}
	return ""
}

// shellIn is the shell that runs command lines in sb: bash in a
// container, whose commands run the image's bash whatever the host's
// shell (PowerShell on Windows), else local.
func shellIn(local osshell.Shell, sb *sandbox.Sandbox) osshell.Shell {
	if sb.InContainer() {
		return osshell.BashShell()
	}
	return local
}

// serverSandbox is where hooks and stdio MCP servers run, by the door's
// rule: the session's sandbox when tools.sandboxHooksAndMCPServers asks,
// else none (started by the user's settings, not the model, they often
// need the network). The hooks' shell is the one there.
func (b *Built) serverSandbox(set settings.Settings) *sandbox.Sandbox {
	if !set.Tools.SandboxHooksAndMCPServers {
		return nil
	}
	return b.Sandbox
}
