package settings

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// Settings is the part of Gemini CLI's settings.json that gemini-ls reads,
// spelled as Gemini CLI spells it, so a user's file works unchanged.
// Other keys are ignored, and Load lists them (UnreadKeys). Load fills in Gemini CLI's schema defaults
// (defaults.go); a Settings built by hand has zero values, which every
// accessor below reads as the default.
type Settings struct {
	General      General              `json:"general"`
	Experimental Experimental         `json:"experimental"`
	Model        Model                `json:"model"`
	ModelConfigs ModelConfigs         `json:"modelConfigs"`
	Tools        Tools                `json:"tools"`
	Context      Context              `json:"context"`
	Security     Security             `json:"security"`
	MCPServers   map[string]MCPServer `json:"mcpServers"`
	// MCP chooses among MCPServers by name.
	MCP MCP `json:"mcp"`
	// UseWriteTodos offers the model write_todos, its to-do list; on unless
	// false, as in Gemini CLI.
	UseWriteTodos *bool  `json:"useWriteTodos"`
	Skills        Skills `json:"skills"`
	// Agents are the user's changes to the subagents (agents.go).
	Agents Agents `json:"agents"`
	// Hooks are the commands run at points of the agent's loop (hooks.go),
	// and HooksConfig turns them on or off.
	Hooks       Hooks       `json:"hooks"`
	HooksConfig HooksConfig `json:"hooksConfig"`
	// Telemetry is 0.61's OpenTelemetry export (telemetry.go).
	Telemetry Telemetry `json:"telemetry"`
	// PolicyPaths are policy files or directories read instead of
	// ~/.gemini/policies, in the user tier; AdminPolicyPaths more in the
	// admin tier, taken from the system settings file only (Load).
	PolicyPaths      []string `json:"policyPaths"`
	AdminPolicyPaths []string `json:"adminPolicyPaths"`
	// Admin are an administrator's locks on features, from the system
	// settings file only (admin.go).
	Admin Admin `json:"admin"`
	// InlineCompletion is gemini-ls's own: completion as the user types
	// and next edit suggestions (completion.go).
	InlineCompletion InlineCompletion `json:"inlineCompletion"`
	// CodeIntelligence is gemini-ls's own: the language servers the
	// code-intelligence tools ask (codeintel.go).
	CodeIntelligence CodeIntelligence `json:"codeIntelligence"`
	// Advanced is the "advanced" object, of which gemini-ls reads
	// bugCommand.
	Advanced Advanced `json:"advanced"`
	// Output is the "output" object: how `gemini-ls run` prints.
	Output Output `json:"output"`

	// given are the values variables gave the files' strings, with the
	// variables' names, for Redact; Load sets it.
	given map[string]string
	// unread are the keys of the files that nothing reads; Load sets it.
	unread []Unread
	// projectHooks are the trusted roots' own hooks; Load sets it.
	projectHooks []ProjectHooks
	// antigravity are the Antigravity MCP files found and what was taken
	// of each; Load sets it.
	antigravity []AntigravityFile
}

// General is the "general" object.
type General struct {
	// DefaultApprovalMode is "default", "auto_edit" or "plan" in a file;
	// "yolo" only through an overlay (the editor's options), as Gemini CLI
	// allows yolo only from its command line. Load drops any other value
	// with a warning.
	DefaultApprovalMode string `json:"defaultApprovalMode"`
	Plan                Plan   `json:"plan"`
	// Checkpointing, when enabled, snapshots the workspace and the
	// conversation before each edit lands, for /restore.
	Checkpointing struct {
		Enabled bool `json:"enabled"`
	} `json:"checkpointing"`
	// TopicUpdateNarration offers the model update_topic and tells it to
	// narrate its work by topics (TopicNarration).
	TopicUpdateNarration *bool `json:"topicUpdateNarration"`
	// SessionRetention is which saved sessions start-up removes.
	SessionRetention SessionRetention `json:"sessionRetention"`
	// MaxAttempts bounds the requests made for one model call (the first
	// and its retries); read it through RetryAttempts.
	MaxAttempts *int `json:"maxAttempts"`
	// RetryFetchErrors also retries a request whose connection broke
	// without a network error code (Node's "fetch failed"); on unless
	// false, as in Gemini CLI 0.61.
	RetryFetchErrors *bool `json:"retryFetchErrors"`
}

// DefaultToolOutputThreshold is Gemini CLI 0.61's
// tools.truncateToolOutputThreshold default, in characters.
const DefaultToolOutputThreshold = 40_000

// ToolOutputThreshold is tools.truncateToolOutputThreshold, the default
// when unset; 0 when it is 0 or less, which cuts nothing, as in 0.61.
func (t Tools) ToolOutputThreshold() int {
	switch {
	case t.TruncateToolOutputThreshold == nil:
		return DefaultToolOutputThreshold
	case *t.TruncateToolOutputThreshold <= 0:
		return 0
	}
	return *t.TruncateToolOutputThreshold
}

// DefaultMaxAttempts is Gemini CLI 0.61's general.maxAttempts default,
// and its cap (Config: Math.min(maxAttempts ?? 10, 10)).
const DefaultMaxAttempts = 10

// RetryAttempts is general.maxAttempts as Gemini CLI 0.61 reads it,
// capped at DefaultMaxAttempts; unset is the default. A value below 1,
// which makes 0.61 fail every request, is the default with an error
// saying so.
func (g General) RetryAttempts() (int, error) {
	switch {
	case g.MaxAttempts == nil:
		return DefaultMaxAttempts, nil
	case *g.MaxAttempts < 1:
		return DefaultMaxAttempts, fmt.Errorf("general.maxAttempts is %d; it must be at least 1, so %d is used", *g.MaxAttempts, DefaultMaxAttempts)
	}
	return min(*g.MaxAttempts, DefaultMaxAttempts), nil
}

// SessionRetention is general.sessionRetention, 0.61's names; unset
// fields take 0.61's defaults (enabled, maxAge "30d", minRetention
// "1d", no maxCount).
type SessionRetention struct {
	Enabled      *bool   `json:"enabled"`
	MaxAge       *string `json:"maxAge"`
	MaxCount     *int    `json:"maxCount"`
	MinRetention string  `json:"minRetention"`
}

// Output is the "output" object.
type Output struct {
	// Format is `gemini-ls run`'s output format when --output-format
	// is not given: "text" (also when unset) or "json", as in Gemini
	// CLI 0.61, whose flag wins over it too.
	Format string `json:"format"`
}

// Advanced is the "advanced" object.
type Advanced struct {
	BugCommand BugCommand `json:"bugCommand"`
	// ExcludedEnvVars are the variables a project's .env file does not
	// set; Load joins every file's lists with 0.61's default, DEBUG and
	// DEBUG_MODE. IgnoreLocalEnv reads a plain .env only in the home
	// directory. Both are read before the .env is (setup's loadEnv).
	ExcludedEnvVars []string `json:"excludedEnvVars"`
	IgnoreLocalEnv  bool     `json:"ignoreLocalEnv"`
}

// BugCommand is advanced.bugCommand, what /bug makes: URLTemplate, when
// set, is the bug report's URL, its {title}, {info} and {problem} each
// replaced (once) by the report's part, URL-encoded, as Gemini CLI 0.61
// fills it.
type BugCommand struct {
	URLTemplate string `json:"urlTemplate"`
}

// Experimental is the "experimental" object, of which gemini-ls reads
// what Gemini CLI 0.61 still reads in place of a newer key.
type Experimental struct {
	// TopicUpdateNarration is general.topicUpdateNarration's deprecated
	// place.
	TopicUpdateNarration *bool `json:"topicUpdateNarration"`
	// EnableAgents turns the subagents on (invoke_agent, /agents); on
	// when unset, as in Gemini CLI 0.61 (Config.enableAgents).
	EnableAgents *bool `json:"enableAgents"`
	// AutoMemory is Gemini CLI 0.61's auto memory, which extracts
	// memories and skills from past sessions for the user to review;
	// gemini-ls extracts none, but reviews what 0.61 extracted (/memory
	// inbox) only with it on, as 0.61 does.
	AutoMemory bool `json:"autoMemory"`
	// TaskTracker offers the task tracker's tools (tracker_*), off
	// unless true, as in Gemini CLI 0.61.
	TaskTracker bool `json:"taskTracker"`
	// Worktrees lets a run start in a git worktree of its own
	// (--worktree), off unless true, as in Gemini CLI 0.61.
	Worktrees bool `json:"worktrees"`
	// WorktreeSetupCommand is gemini-ls's own: a shell command an agent
	// runs first in a worktree made for it (installing dependencies,
	// which 0.61's docs leave to the user), as its own run_shell_command
	// call: asked, sandboxed and recorded as any.
	WorktreeSetupCommand string `json:"worktreeSetupCommand"`
}

// AgentsEnabled is whether subagents are offered:
// experimental.enableAgents, on when unset.
func (s Settings) AgentsEnabled() bool {
	return s.Experimental.EnableAgents == nil || *s.Experimental.EnableAgents
}

// TopicNarration is whether the model narrates its work with
// update_topic: general.topicUpdateNarration, else the deprecated
// experimental.topicUpdateNarration, else on, as Gemini CLI 0.61 has it.
func (s Settings) TopicNarration() bool {
	switch {
	case s.General.TopicUpdateNarration != nil:
		return *s.General.TopicUpdateNarration
	case s.Experimental.TopicUpdateNarration != nil:
		return *s.Experimental.TopicUpdateNarration
	}
	return true
}

// Plan is "general.plan": plan mode (dialog.ApprovalPlan).
type Plan struct {
	// Enabled offers plan mode; on unless false, as in Gemini CLI.
	Enabled *bool `json:"enabled"`
	// Directory is where plans are written, relative to the project root
	// and inside it; read it through PlansDir. Unset, each session has
	// its own, as in Gemini CLI: ~/.gemini/tmp/<project>/<session>/plans.
	Directory string `json:"directory"`
	// ModelRouting sends an auto's prompts in plan mode to Pro and, once
	// a plan is approved, to Flash; on unless false, as in Gemini CLI.
	ModelRouting *bool `json:"modelRouting"`
}

// RoutesByMode reports whether plan mode decides an auto's model.
func (p Plan) RoutesByMode() bool { return p.ModelRouting == nil || *p.ModelRouting }

// PlanEnabled reports whether plan mode is offered.
func (p Plan) PlanEnabled() bool { return p.Enabled == nil || *p.Enabled }

// PlansDir is the plans directory Directory names in the project at
// root, which must lie inside root, as Gemini CLI requires; "" when
// Directory is unset, and each session has its own under ~/.gemini/tmp.
func (p Plan) PlansDir(root string) (string, error) {
	if p.Directory == "" {
		return "", nil
	}
	var dir string
	switch {
	case filepath.IsAbs(p.Directory):
		dir = filepath.Clean(p.Directory)
	case strings.HasPrefix(p.Directory, "/") || strings.HasPrefix(p.Directory, `\`):
		// Rooted but not absolute, on Windows: on the root's drive, as
		// Node's path.resolve has it, not below the root.
		dir = filepath.Join(filepath.VolumeName(root), p.Directory)
	default:
		dir = filepath.Join(root, p.Directory)
	}
	if rel, err := filepath.Rel(root, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("general.plan.directory %q resolves to %s, which is outside the project root %s", p.Directory, dir, root)
	}
	return dir, nil
}

// Approval modes.
const (
	ApprovalDefault  = "default"
	ApprovalAutoEdit = "auto_edit"
	ApprovalYolo     = "yolo"
	ApprovalPlan     = "plan"
)

// Model is the "model" object.
type Model struct {
	// Name is the model for conversations; "" leaves it to the front end.
	Name string `json:"name"`
	// MaxSessionTurns bounds the turns of a session; -1 (Gemini CLI's
	// default) or 0 means unlimited.
	MaxSessionTurns int `json:"maxSessionTurns"`
	// CompressionThreshold is the fraction of the model's context window at
	// which the history is compressed, 0 < x ≤ 1; read it through
	// EffectiveCompressionThreshold.
	CompressionThreshold float64 `json:"compressionThreshold"`
	// DisableLoopDetection turns the agent's loop checks off.
	DisableLoopDetection bool `json:"disableLoopDetection"`
	// ThinkingBudget is gemini-ls's own key (Gemini CLI sets the budget
	// through modelConfigs); read it through Settings.ThinkingBudgetFor.
	ThinkingBudget *int `json:"thinkingBudget"`
}

// DefaultCompressionThreshold is Gemini CLI's model.compressionThreshold default.
const DefaultCompressionThreshold = 0.5

// EffectiveCompressionThreshold is CompressionThreshold, or the default
// when it is unset or out of range.
func (m Model) EffectiveCompressionThreshold() float64 {
	if m.CompressionThreshold > 0 && m.CompressionThreshold <= 1 {
		return m.CompressionThreshold
	}
	return DefaultCompressionThreshold
}

// UnlimitedTurns reports whether MaxSessionTurns sets no bound.
func (m Model) UnlimitedTurns() bool { return m.MaxSessionTurns <= 0 }

// ModelConfigs is the part of Gemini CLI's "modelConfigs" gemini-ls reads:
// the aliases and overrides a model name resolves through (package
// modelconfig), as the files hold them, so that one entry that cannot be
// read is left out on its own (modelconfig.FromSettings).
type ModelConfigs struct {
	Aliases         map[string]any `json:"aliases"`
	CustomAliases   map[string]any `json:"customAliases"`
	Overrides       []any          `json:"overrides"`
	CustomOverrides []any          `json:"customOverrides"`
}

// ModelOverride is one entry of modelConfigs.overrides or customOverrides.
type ModelOverride struct {
	Match struct {
		Model         string `json:"model"`
		OverrideScope string `json:"overrideScope"`
	} `json:"match"`
	ModelConfig struct {
		GenerateContentConfig struct {
			ThinkingConfig struct {
				ThinkingBudget *int `json:"thinkingBudget"`
			} `json:"thinkingConfig"`
		} `json:"generateContentConfig"`
	} `json:"modelConfig"`
}

// ThinkingBudgetFor is the thinking budget for the chat model named model:
// the last modelConfigs override (customOverrides after overrides, as
// Gemini CLI adds them) that matches exactly that model, with no agent
// scope, and sets thinkingConfig.thinkingBudget; else model.thinkingBudget;
// else nil (the model's default). -1 asks for dynamic thinking, 0 for none.
func (s Settings) ThinkingBudgetFor(model string) *int {
	var budget *int
	for _, list := range [][]any{s.ModelConfigs.Overrides, s.ModelConfigs.CustomOverrides} {
		for _, v := range list {
			var o ModelOverride
			if fromValue(v, &o) != nil {
				continue // modelconfig.FromSettings names it
			}
			b := o.ModelConfig.GenerateContentConfig.ThinkingConfig.ThinkingBudget
			if b != nil && o.Match.Model == model && o.Match.OverrideScope == "" {
				budget = b
			}
		}
	}
	if budget != nil {
		return budget
	}
	return s.Model.ThinkingBudget
}

// fromValue decodes v, a value as a file holds it, into out by exact
// member names.
func fromValue(v, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return jsjson.Decode(raw, out)
}

// Skills is the "skills" object: agent skills (package skills).
type Skills struct {
	// Enabled offers agent skills; on unless false, as in Gemini CLI.
	Enabled *bool `json:"enabled"`
	// Disabled are skills, by name in any case, the model is not offered.
	// Merged across files as a union, as in Gemini CLI.
	Disabled []string `json:"disabled"`
}

// SkillsEnabled reports whether agent skills are offered.
func (s Skills) SkillsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// Tools is the "tools" object.
type Tools struct {
	// Core, when set, is the only built-in tools offered (toolset applies
	// it); an entry is a tool name, Gemini CLI's class name, or
	// run_shell_command(CMD) to offer the shell for those commands only.
	Core []string `json:"core"`
	// TruncateToolOutputThreshold is how many characters of a shell
	// command's output the model is sent before it is cut; read it
	// through ToolOutputThreshold.
	TruncateToolOutputThreshold *int `json:"truncateToolOutputThreshold"`
	// Exclude removes tools by name: built-in, discovered and MCP tools.
	// Merged across files as a union, as in Gemini CLI.
	Exclude []string `json:"exclude"`
	// Allowed are tools (or run_shell_command(CMD)) that run without
	// confirmation; see ParseAllowed.
	Allowed []string `json:"allowed"`
	// ConfirmationRequired are tools (by name) whose every call asks,
	// whatever allows it; see policy.ConfirmationRequired.
	ConfirmationRequired []string `json:"confirmationRequired"`
	// DiscoveryCommand prints a JSON array of FunctionDeclarations (or an
	// object with function_declarations / functionDeclarations).
	DiscoveryCommand string `json:"discoveryCommand"`
	// CallCommand runs a discovered tool: CallCommand NAME, with the JSON
	// arguments on stdin, prints the JSON result.
	CallCommand string `json:"callCommand"`
	// DisableLLMCorrection turns off replace's last correction stage, the
	// utility model's fix of an old_string nothing else could place. Off
	// (the fix on) unless set, as the issue asks; Gemini CLI defaults it on.
	DisableLLMCorrection bool `json:"disableLLMCorrection"`
	// Sandbox is a boolean, a sandbox command, or an object {enabled,
	// command, allowedPaths, networkAccess, image}: internal/sandbox
	// reads it as Gemini CLI 0.61 does. SandboxAllowedPaths are writable
	// in the sandbox besides the workspace; SandboxNetworkAccess lets
	// sandboxed commands use the network.
	Sandbox              any      `json:"sandbox"`
	SandboxAllowedPaths  []string `json:"sandboxAllowedPaths"`
	SandboxNetworkAccess *bool    `json:"sandboxNetworkAccess"`
	// SandboxHooksAndMCPServers, gemini-ls's own, runs hooks and stdio
	// MCP servers in the sandbox too.
	SandboxHooksAndMCPServers bool `json:"sandboxHooksAndMCPServers"`
	// SandboxAllowedSockets, gemini-ls's own, are the host's Unix sockets
	// sandboxed commands may connect to; without, they can make none.
	SandboxAllowedSockets []string `json:"sandboxAllowedSockets"`
	// Shell is tools.shell, of which gemini-ls reads inactivityTimeout.
	Shell Shell `json:"shell"`
}

// Shell is the "tools.shell" object.
type Shell struct {
	// InactivityTimeout is how many seconds a run_shell_command command
	// may print nothing before it is killed; read it through Inactivity.
	InactivityTimeout *float64 `json:"inactivityTimeout"`
}

// DefaultShellInactivity is tools.shell.inactivityTimeout unset: 0.61's
// 300 seconds.
const DefaultShellInactivity = 300 * time.Second

// Inactivity is tools.shell.inactivityTimeout as a duration: 0.61's 300
// seconds when unset, and negative (no limit) when 0 or less, as 0.61
// sets no timer then.
func (s Shell) Inactivity() time.Duration {
	switch t := s.InactivityTimeout; {
	case t == nil:
		return DefaultShellInactivity
	case *t <= 0:
		return -1
	default:
		return time.Duration(*t * float64(time.Second))
	}
}

// Context is the "context" object.
type Context struct {
	// FileName is the name, or names, of the context (memory) files; read
	// it through FileNames.
	FileName StringList `json:"fileName"`
	// IncludeDirectories are more workspace roots (setup adds them); a
	// relative one is the first root's, ~ the home directory's.
	IncludeDirectories []string `json:"includeDirectories"`
	// LoadMemoryFromIncludeDirectories reads the context files of the
	// IncludeDirectories too.
	LoadMemoryFromIncludeDirectories bool `json:"loadMemoryFromIncludeDirectories"`
	// FileFiltering chooses the ignore files the agent's searches and
	// reads obey, and whether an @path that names nothing is searched
	// for.
	FileFiltering FileFiltering `json:"fileFiltering"`
	// IncludeDirectoryTree, unless false, draws the workspace's
	// directories in the session's first message; read it through
	// DrawsDirectoryTree.
	IncludeDirectoryTree *bool `json:"includeDirectoryTree"`
}

// DrawsDirectoryTree is context.includeDirectoryTree: true unless false.
func (c Context) DrawsDirectoryTree() bool {
	return c.IncludeDirectoryTree == nil || *c.IncludeDirectoryTree
}

// FileFiltering is Gemini CLI's context.fileFiltering, what of it
// gemini-ls reads.
type FileFiltering struct {
	// RespectGitIgnore, unless false, has .gitignore files (and
	// .git/info/exclude) count.
	RespectGitIgnore *bool `json:"respectGitIgnore"`
	// RespectGeminiIgnore, unless false, has .geminiignore files count.
	RespectGeminiIgnore *bool `json:"respectGeminiIgnore"`
	// EnableRecursiveFileSearch, unless false, searches the workspace
	// for an @path that names nothing.
	EnableRecursiveFileSearch *bool `json:"enableRecursiveFileSearch"`
	// CustomIgnoreFilePaths are more ignore files, relative to the
	// workspace's roots, over the others; the first over the later.
	CustomIgnoreFilePaths []string `json:"customIgnoreFilePaths"`
}

// RespectsGitIgnore is respectGitIgnore, true unless set false.
func (f FileFiltering) RespectsGitIgnore() bool { return isNotFalse(f.RespectGitIgnore) }

// RespectsGeminiIgnore is respectGeminiIgnore, true unless set false.
func (f FileFiltering) RespectsGeminiIgnore() bool { return isNotFalse(f.RespectGeminiIgnore) }

// SearchesReferences is enableRecursiveFileSearch, true unless set false.
func (f FileFiltering) SearchesReferences() bool { return isNotFalse(f.EnableRecursiveFileSearch) }

func isNotFalse(b *bool) bool { return b == nil || *b }

// DefaultContextFileName is Gemini CLI's context file name, the first of
// the names read when context.fileName is unset.
const DefaultContextFileName = "GEMINI.md"

// AgentsContextFileName is the context file other agents read by
// default; gemini-ls reads it after GEMINI.md when context.fileName is
// unset, where Gemini CLI 0.61 reads GEMINI.md alone.
const AgentsContextFileName = "AGENTS.md"

// FileNames is context.fileName, or GEMINI.md then AGENTS.md when it is
// unset or empty.
func (c Context) FileNames() []string {
	if len(c.FileName) == 0 {
		return []string{DefaultContextFileName, AgentsContextFileName}
	}
	return c.FileName
}

// StringList is a setting that may be written as one string or as an
// array of strings (Gemini CLI's StringOrStringArray).
type StringList []string

func (l *StringList) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil // as for any other type: null leaves the value alone
	}
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*l = StringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		// The decoder adds the key's path to this error.
		return &json.UnmarshalTypeError{Value: jsonKind(data), Type: reflect.TypeFor[StringList]()}
	}
	*l = many
	return nil
}

// jsonKind names the kind of a JSON value, as encoding/json's errors do.
func jsonKind(data []byte) string {
	var v any
	_ = json.Unmarshal(data, &v)
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return "array with a " + jsonKind(mustMarshal(e))
			}
		}
		return "array"
	}
	return "object"
}

func mustMarshal(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// Security is the "security" object.
type Security struct {
	Auth Auth `json:"auth"`
	// BlockGitExtensions leaves out the extensions installed from git;
	// AllowedExtensions, when not empty, loads only those whose install
	// source matches one of its regular expressions (and overrides it).
	BlockGitExtensions bool     `json:"blockGitExtensions"`
	AllowedExtensions  []string `json:"allowedExtensions"`
	// DisableYoloMode refuses the yolo approval mode however it is
	// asked for; DisableAlwaysAllow offers no "always allow" and ignores
	// the rules one saved. EnablePermanentToolApproval offers an "always
	// allow" for all future sessions, saved as a policy rule, and
	// AutoAddToPolicyByDefault makes it the suggested answer for the
	// calls Gemini CLI deems safe to save (all but shell commands).
	DisableYoloMode             bool `json:"disableYoloMode"`
	DisableAlwaysAllow          bool `json:"disableAlwaysAllow"`
	EnablePermanentToolApproval bool `json:"enablePermanentToolApproval"`
	AutoAddToPolicyByDefault    bool `json:"autoAddToPolicyByDefault"`
	// ToolSandboxing runs the tools in the native sandbox (bubblewrap on
	// Linux) even when tools.sandbox asks for none.
	ToolSandboxing bool `json:"toolSandboxing"`
	// EnvironmentVariableRedaction keeps the variables that may hold
	// secrets from the commands run on the model's behalf.
	EnvironmentVariableRedaction EnvironmentVariableRedaction `json:"environmentVariableRedaction"`
}

// EnvironmentVariableRedaction is "security.environmentVariableRedaction".
type EnvironmentVariableRedaction struct {
	Enabled bool     `json:"enabled"`
	Allowed []string `json:"allowed"`
	Blocked []string `json:"blocked"`
}

// Auth is "security.auth".
type Auth struct {
	// SelectedType is one of the AuthType values; "" leaves the choice to
	// the environment.
	SelectedType string `json:"selectedType"`
	// EnforcedType, when set, is the only auth type that may be used
	// (auth.CheckEnforced).
	EnforcedType string `json:"enforcedType"`
}

// Auth types, as Gemini CLI spells them.
const (
	AuthGeminiAPIKey  = "gemini-api-key"
	AuthVertexAI      = "vertex-ai"
	AuthOAuthPersonal = "oauth-personal"
	AuthCloudShell    = "cloud-shell"
)

// MCPServer is one entry of "mcpServers": a stdio server (Command) or a
// remote one: HTTPURL (streamable HTTP), or URL with Type "http"
// (streamable HTTP) or "sse" (SSE); a URL without a type tries streamable
// HTTP, then SSE, as Gemini CLI does.
type MCPServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`

	HTTPURL string            `json:"httpUrl"`
	URL     string            `json:"url"`
	Type    string            `json:"type"`
	Headers map[string]string `json:"headers"`
	// OAuth configures the sign-in of a remote server that requires it.
	OAuth *MCPOAuth `json:"oauth"`
	// AuthProviderType "google_credentials" sends the Application Default
	// Credentials' token (scopes: OAuth.Scopes); "dynamic_discovery", the
	// default, uses OAuth when the server asks for it.
	AuthProviderType string `json:"authProviderType"`

	// Timeout is in milliseconds, for each request to the server.
	Timeout int `json:"timeout"`
	// Trust skips the confirmation of this server's tools.
	Trust        bool     `json:"trust"`
	IncludeTools []string `json:"includeTools"`
	ExcludeTools []string `json:"excludeTools"`
}

// MCP server transport types, as Gemini CLI spells "type".
const (
	MCPTypeHTTP = "http"
	MCPTypeSSE  = "sse"
)

// MCP server auth provider types, as Gemini CLI spells "authProviderType".
const (
	MCPAuthDynamicDiscovery  = "dynamic_discovery"
	MCPAuthGoogleCredentials = "google_credentials"
)

// MCPOAuth is an MCP server's "oauth" block, Gemini CLI's names. What it
// leaves out is discovered from the server.
type MCPOAuth struct {
	// Enabled signs in at start-up when the server asks for it; otherwise
	// the user is told to run /mcp auth.
	Enabled          bool     `json:"enabled"`
	ClientID         string   `json:"clientId"`
	ClientSecret     string   `json:"clientSecret"`
	AuthorizationURL string   `json:"authorizationUrl"`
	TokenURL         string   `json:"tokenUrl"`
	RegistrationURL  string   `json:"registrationUrl"`
	Scopes           []string `json:"scopes"`
	Audiences        []string `json:"audiences"`
	RedirectURI      string   `json:"redirectUri"`
}

// MCP is settings' "mcp": which of the configured servers are used.
type MCP struct {
	// Allowed, when not empty, are the only servers used; Excluded are
	// never used, whatever Allowed says.
	Allowed  []string `json:"allowed"`
	Excluded []string `json:"excluded"`
}

// Keep reports whether the server named name is used.
func (m MCP) Keep(name string) bool {
	if len(m.Allowed) > 0 && !slices.Contains(m.Allowed, name) {
		return false
	}
	return !slices.Contains(m.Excluded, name)
}
