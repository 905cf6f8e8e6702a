package manage

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/enablement"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp/oauth"
)

// `gemini-ls mcp add|list|remove|enable|disable` are Gemini CLI 0.61's `gemini mcp`
// (packages/cli/src/commands/mcp): the same options, the same entries in
// the same settings files (the project's .gemini/settings.json by
// default, --scope user for ~/.gemini/settings.json), written as 0.61
// writes them (settings.SetValue), and its messages, on stderr as 0.61
// writes them, so either tool undoes what the other did.

// mcpListTimeout is how long mcp list waits for a server without a
// timeout of its own: 0.61's MCP_LIST_DEFAULT_TIMEOUT_MSEC.
const mcpListTimeout = 5 * time.Second

// mcpCommands are gemini-ls mcp's commands.
func (e mgmtEnv) mcpCommands() []cmdline.Command {
	return []cmdline.Command{
		{Name: "add", Args: "<name> <commandOrUrl> [args...]", Summary: "Add a server to the settings.", Run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.mcpAdd(ctx, args, stderr)
		}},
		{Name: "remove", Args: "<name>", Summary: "Remove a server from the settings.", Run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.mcpRemove(ctx, args, stderr)
		}},
		{Name: "list", Summary: "List the configured servers, connecting to each.", Run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.mcpList(ctx, args, stderr)
		}},
		{Name: "enable", Args: "<name>", Summary: "Turn a server back on, for every session.", Run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.mcpEnable(ctx, args, true, stderr)
		}},
		{Name: "disable", Args: "<name>", Summary: "Turn a server off: no session starts it.", Run: func(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
			return e.mcpEnable(ctx, args, false, stderr)
		}},
	}
}

// mcpCommand is `gemini-ls mcp`.
func (e mgmtEnv) mcpCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	subs := e.mcpCommands()
	if code, done := groupHelp(args, stderr, "mcp", subs, "You need at least one command before continuing."); done {
		return code
	}
	if c, ok := cmdline.Find(subs, args[0]); ok {
		return c.Run(ctx, args[1:], stdin, stdout, stderr)
	}
	fmt.Fprintf(stderr, "Unknown argument: %s\n", args[0])
	writeGroupHelp(stderr, "mcp", subs)
	return 1
}

// mcpScopes are mcp add and remove's --scope.
var mcpScope = mgmtOpt{names: []string{"scope", "s"}, kind: optString, choices: []string{"user", "project"}, def: "project", help: "Configuration scope: the user's settings or the project's"}

// scopeFile is the settings file of an mcp scope: the user's, or the
// working directory's .gemini/settings.json.
func scopeFile(scope, cwd, userDir string) string {
	if scope == "user" {
		return filepath.Join(userDir, "settings.json")
	}
	return configfiles.ProjectSettings(cwd)
}

// mcpServerEntry is a stdio entry as 0.61 writes it, its members in
// 0.61's order; nil members are left out, as JSON.stringify leaves out
// undefined ones.
type mcpServerEntry struct {
	Command      string             `json:"command"`
	Args         []string           `json:"args"`
	Env          *map[string]string `json:"env,omitempty"`
	Timeout      *float64           `json:"timeout,omitempty"`
	Trust        *bool              `json:"trust,omitempty"`
	Description  *string            `json:"description,omitempty"`
	IncludeTools []string           `json:"includeTools,omitempty"`
	ExcludeTools []string           `json:"excludeTools,omitempty"`
}

// mcpRemoteEntry is an sse or http entry as 0.61 writes it.
type mcpRemoteEntry struct {
	URL          string             `json:"url"`
	Type         string             `json:"type"`
	Headers      *map[string]string `json:"headers,omitempty"`
	Timeout      *float64           `json:"timeout,omitempty"`
	Trust        *bool              `json:"trust,omitempty"`
	Description  *string            `json:"description,omitempty"`
	IncludeTools []string           `json:"includeTools,omitempty"`
	ExcludeTools []string           `json:"excludeTools,omitempty"`
}

// mcpAddOptions are mcp add's options.
func mcpAddOptions() []mgmtOpt {
	return []mgmtOpt{mcpScope,
		{names: []string{"transport", "t", "type"}, kind: optString, choices: []string{"stdio", "sse", "http"}, def: "stdio", help: "Transport type"},
		{names: []string{"env", "e"}, kind: optEach, help: "Set an environment variable of a stdio server (e.g. -e KEY=value), repeatable"},
		{names: []string{"header", "H"}, kind: optEach, help: `Set an HTTP header for sse and http (e.g. -H "X-Api-Key: abc123"), repeatable`},
		{names: []string{"timeout"}, kind: optString, help: "Set the connection timeout in milliseconds"},
		{names: []string{"trust"}, kind: optBool, help: "Trust the server (bypass all tool call confirmation prompts)"},
		{names: []string{"description"}, kind: optString, help: "Set the description for the server"},
		{names: []string{"include-tools"}, kind: optGreedy, help: "The only tools used of the server"},
		{names: []string{"exclude-tools"}, kind: optGreedy, help: "Tools of the server not used"},
	}
}

func (e mgmtEnv) mcpAdd(ctx context.Context, args []string, stderr io.Writer) int {
	a, err := parseMgmtArgs(args, mcpAddOptions(), true, 2, -1)
	if code, done := e.usageError(a, err, "mcp add", stderr); done {
		return code
	}
	common, ok := mcpEntryOptions(a, stderr)
	if !ok {
		return 1
	}
	scope, transport := a.str("scope"), a.str("transport")
	cwd, userDir, err := e.dirs()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	path := scopeFile(scope, cwd, userDir)
	// 0.61 means to refuse this, but says it added the server and
	// writes nothing (its workspace scope is read-only in the home
	// directory): refused here, as it intends.
	if scope == "project" && sameSettingsFile(path, scopeFile("user", cwd, userDir)) {
		fmt.Fprintln(stderr, "Error: Please use --scope user to edit settings in the home directory.")
		return 1
	}
	name := a.positional[0]
	entry := mcpEntry(a, transport, common, stderr)
	_, existed, err := settings.ReadValue(path, []string{"mcpServers", name})
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if existed {
		fmt.Fprintf(stderr, "MCP server %q is already configured within %s settings.\n", name, scope)
	}
	if err := settings.SetValue(ctx, path, []string{"mcpServers", name}, entry); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	if existed {
		fmt.Fprintf(stderr, "MCP server %q updated in %s settings.\n", name, scope)
	} else {
		fmt.Fprintf(stderr, "MCP server %q added to %s settings. (%s)\n", name, scope, transport)
	}
	return 0
}

// mcpCommon are the members of an entry for every transport; nil ones
// were not given.
type mcpCommon struct {
	timeout          *float64
	trust            *bool
	description      *string
	include, exclude []string
}

// mcpEntryOptions are the members for every transport that a gives;
// false when one cannot be used, said on stderr.
func mcpEntryOptions(a mgmtArgs, stderr io.Writer) (mcpCommon, bool) {
	var c mcpCommon
	if a.has("timeout") {
		n, err := strconv.ParseFloat(a.str("timeout"), 64)
		if err != nil {
			fmt.Fprintf(stderr, "gemini-ls mcp add: --timeout %q is not a number of milliseconds\n", a.str("timeout"))
			return c, false
		}
		c.timeout = &n
	}
	if a.has("trust") {
		b := a.str("trust") == "true"
		c.trust = &b
	}
	if a.has("description") {
		d := a.str("description")
		c.description = &d
	}
	c.include, c.exclude = a.values["include-tools"], a.values["exclude-tools"]
	if c.include != nil && len(c.include) == 0 {
		c.include = []string{} // yargs' empty array; written as []
	}
	return c, true
}

// mcpEntry is the entry of the server a adds, over transport.
func mcpEntry(a mgmtArgs, transport string, c mcpCommon, stderr io.Writer) any {
	target := a.positional[1]
	switch transport {
	case "sse", "http":
		return mcpRemoteEntry{URL: target, Type: transport, Headers: mcpHeaders(a), Timeout: c.timeout, Trust: c.trust,
			Description: c.description, IncludeTools: c.include, ExcludeTools: c.exclude}
	default:
		serverArgs := append(a.positional[2:], a.rest...)
		env := mcpEnv(a, stderr)
		if serverArgs == nil {
			serverArgs = []string{}
		}
		return mcpServerEntry{Command: target, Args: serverArgs, Env: env, Timeout: c.timeout, Trust: c.trust,
			Description: c.description, IncludeTools: c.include, ExcludeTools: c.exclude}
	}
}

// mcpHeaders are the --header options' headers; nil for none given.
func mcpHeaders(a mgmtArgs) *map[string]string {
	if !a.has("header") {
		return nil
	}
	h := map[string]string{}
	for _, kv := range a.values["header"] {
		// 0.61 cuts at the first colon and keeps a header only with a
		// name and a value.
		key, value, _ := strings.Cut(kv, ":")
		if key, value = strings.TrimSpace(key), strings.TrimSpace(value); key != "" && value != "" {
			h[key] = value
		}
	}
	return &h
}

// mcpEnv are the --env options' variables; nil for none given.
func mcpEnv(a mgmtArgs, stderr io.Writer) *map[string]string {
	if !a.has("env") {
		return nil
	}
	m := map[string]string{}
	for _, kv := range a.values["env"] {
		// 0.61 splits at every "=" and keeps the first two parts:
		// KEY=a=b is KEY=a. Said, not copied silently.
		parts := strings.Split(kv, "=")
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			fmt.Fprintf(stderr, "Warning: --env %q is not KEY=value; left out, as Gemini CLI leaves it out.\n", kv)
			continue
		}
		if len(parts) > 2 {
			fmt.Fprintf(stderr, "Warning: --env %q: the value is cut at its second \"=\" (%s=%s), as Gemini CLI cuts it.\n", kv, parts[0], parts[1])
		}
		m[parts[0]] = parts[1]
	}
	return &m
}

func (e mgmtEnv) mcpRemove(ctx context.Context, args []string, stderr io.Writer) int {
	a, err := parseMgmtArgs(args, []mgmtOpt{mcpScope}, false, 1, 1)
	if code, done := e.usageError(a, err, "mcp remove", stderr); done {
		return code
	}
	name, scope := a.positional[0], a.str("scope")
	cwd, userDir, err := e.dirs()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	found, err := settings.DeleteValue(ctx, scopeFile(scope, cwd, userDir), []string{"mcpServers", name})
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	case !found:
		// 0.61 says so and succeeds.
		fmt.Fprintf(stderr, "Server %q not found in %s settings.\n", name, scope)
	default:
		fmt.Fprintf(stderr, "Server %q removed from %s settings.\n", name, scope)
	}
	return 0
}

// listedServer is one server mcp list shows.
type listedServer struct {
	name      string
	server    settings.MCPServer
	extension string
}

func (e mgmtEnv) mcpList(ctx context.Context, args []string, stderr io.Writer) int {
	a, err := parseMgmtArgs(args, nil, false, 0, 0)
	if code, done := e.usageError(a, err, "mcp list", stderr); done {
		return code
	}
	// An untrusted folder's servers are listed all the same, as 0.61
	// lists them (getMergedSettingsAsIfTrusted), each Disabled.
	w, ok := e.read(stderr, true)
	if !ok {
		return 1
	}
	cwd, userDir, set := w.cwd, w.userDir, w.settings
	trusted := w.trust.Trusted(cwd)
	withExtensions, _ := w.extensions.Apply(set)
	var servers []listedServer
	// Settings' servers first, in the order 0.61's merge gives them (the
	// layers in order, each file's in its order), then the extensions'.
	var order []string
	for _, path := range []string{settings.SystemDefaultsPath(e.getenv), scopeFile("user", cwd, userDir),
		scopeFile("project", cwd, userDir), settings.SystemSettingsPath(e.getenv)} {
		for _, name := range settings.MemberNames(path, []string{"mcpServers"}) {
			if !slices.Contains(order, name) {
				order = append(order, name)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(withExtensions.MCPServers)) {
		if !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	for _, name := range order {
		s, ok := withExtensions.MCPServers[name]
		if owner := w.extensions.ServerOwner(name, s); ok && owner == "" {
			servers = append(servers, listedServer{name: name, server: s})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(withExtensions.MCPServers)) {
		s := withExtensions.MCPServers[name]
		if owner := w.extensions.ServerOwner(name, s); owner != "" {
			servers = append(servers, listedServer{name: name, server: s, extension: owner})
		}
	}
	if len(servers) == 0 {
		fmt.Fprintln(stderr, "No MCP servers configured.")
		return 0
	}
	if !trusted {
		fmt.Fprint(stderr, "Warning: MCP servers are configured but disabled because this folder is untrusted.\nUser-level servers are also suppressed in untrusted folders to prevent accidental side-effects.\n\n")
	}
	// A server the enablement file turns off is Disabled, not connected
	// to, as in 0.61.
	disabled, err := enablement.In(userDir).Disabled()
	if err != nil {
		fmt.Fprintf(stderr, "Warning: %v\n", err)
	}
	var tried map[string]connection
	if trusted {
		tried = e.connectAll(ctx, slices.DeleteFunc(slices.Clone(servers), func(s listedServer) bool { return disabled[enablement.Normalize(s.name)] }), cwd, userDir)
	}
	fmt.Fprint(stderr, "Configured MCP servers:\n\n")
	for _, s := range servers {
		c, ok := tried[s.name]
		switch {
		case !trusted || disabled[enablement.Normalize(s.name)]:
			fmt.Fprintf(stderr, "\u25cb %s - Disabled\n", serverInfo(s))
		case c.connected:
			fmt.Fprintf(stderr, "\u2713 %s - Connected\n", serverInfo(s))
		default:
			// 0.61's line as it is, for scripts that match it; why on
			// the next, which 0.61 does not say.
			fmt.Fprintf(stderr, "\u2717 %s - Disconnected\n", serverInfo(s))
			if ok && c.why != "" {
				fmt.Fprintf(stderr, "    %s\n", c.why)
			}
		}
	}
	return 0
}

// connection is how connecting to one server went: connected, or why
// not.
type connection struct {
	connected bool
	why       string
}

// serverInfo is how 0.61's mcp list describes a server.
func serverInfo(s listedServer) string {
	info := s.name
	if s.extension != "" {
		info += " (from " + s.extension + ")"
	}
	info += ": "
	switch c := s.server; {
	case c.HTTPURL != "":
		info += c.HTTPURL + " (http)"
	case c.URL != "":
		typ := c.Type
		if typ == "" {
			typ = "http"
		}
		info += c.URL + " (" + typ + ")"
	case c.Command != "":
		info += c.Command + " " + strings.Join(c.Args, " ") + " (stdio)"
	}
	return info
}

// connectAll connects to every server at once, through the client
// gemini-ls runs them with, and reports which connected (handshake and
// tool listing) within its timeout, 5 seconds when it has none, as
// 0.61's testMCPConnection bounds it, and why each other did not. Every
// server is stopped before it returns.
func (e mgmtEnv) connectAll(ctx context.Context, servers []listedServer, cwd, userDir string) map[string]connection {
	cfg := map[string]settings.MCPServer{}
	bound := mcpListTimeout
	for _, s := range servers {
		cfg[s.name] = s.server
		if t := time.Duration(s.server.Timeout) * time.Millisecond; t > bound {
			bound = t
		}
	}
	m := mcp.Start(mcp.Config{Servers: cfg, Dir: cwd, Version: e.version,
		TokenFile: filepath.Join(userDir, oauth.FileName),
		// No sign-in from a listing: one that would start is shown
		// nowhere and ends with the wait.
		ShowAuthURL:   func(string, string) {},
		SignInTimeout: bound,
	})
	defer m.Close()
	wait, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	_ = m.Wait(wait) // what did not connect in time is disconnected
	out := map[string]connection{}
	for _, st := range m.Servers() {
		out[st.Name] = connection{connected: st.State == mcp.StateReady, why: notConnected(st, cfg[st.Name], bound)}
	}
	return out
}

// notConnected says why the server whose status is st did not connect
// within bound, its own timeout when it has one; "" when it did.
func notConnected(st mcp.ServerStatus, server settings.MCPServer, bound time.Duration) string {
	switch st.State {
	case mcp.StateReady:
		return ""
	case mcp.StateStarting:
		if t := time.Duration(server.Timeout) * time.Millisecond; t > 0 {
			return fmt.Sprintf("did not answer within %s, its timeout (mcpServers.%s.timeout)", t, st.Name)
		}
		return fmt.Sprintf("did not answer within %s, as long as mcp list waits for a server without a timeout (mcpServers.%s.timeout)", bound, st.Name)
	case mcp.StateUnauthenticated:
		return "needs a sign-in: run /mcp auth " + st.Name + " in a session"
	}
	if st.Error == "" {
		return string(st.State)
	}
	return st.Error
}

// mcpEnable is `gemini-ls mcp enable|disable <name> [--session]`, what
// 0.61's handleEnable and handleDisable mean to do (they find no server:
// they look among the keys of getMcpServersFromConfig's answer, not its
// mcpServers): the server, which the settings or an extension must name,
// is turned on or off in the user's mcp-server-enablement.json, which
// every session reads at start-up and /mcp reload. --session, as in
// 0.61, touches only this process, which ends at once: it changes
// nothing.
func (e mgmtEnv) mcpEnable(ctx context.Context, args []string, enable bool, stderr io.Writer) int {
	command := "mcp disable"
	sessionHelp := "Disable for current session only"
	if enable {
		command, sessionHelp = "mcp enable", "Clear session-only disable"
	}
	a, err := parseMgmtArgs(args, []mgmtOpt{{names: []string{"session"}, kind: optBool, help: sessionHelp}}, false, 1, 1)
	if code, done := e.usageError(a, err, command, stderr); done {
		return code
	}
	w, ok := e.read(stderr, false)
	if !ok {
		return exitError
	}
	given := a.positional[0]
	name := enablement.Normalize(given)
	servers, _ := w.extensions.Apply(w.settings)
	if !slices.ContainsFunc(slices.Collect(maps.Keys(servers.MCPServers)), func(s string) bool { return enablement.Normalize(s) == name }) {
		// 0.61 says so and succeeds.
		fmt.Fprintf(stderr, "Error: Server '%s' not found. Use 'gemini-ls mcp list' to see available servers.\n", given)
		return 0
	}
	session := a.str("session") == "true"
	if enable {
		if why := blockedBySettings(w.settings.MCP, name); why != "" {
			fmt.Fprintf(stderr, "Error: %s\n", why)
			return 0
		}
	}
	switch {
	case session && enable:
		fmt.Fprintf(stderr, "\u2713 Session disable cleared for '%s'.\n", name)
	case session:
		fmt.Fprintf(stderr, "\u2713 MCP server '%s' disabled for this session.\n", name)
	default:
		file := enablement.In(w.userDir)
		change, state := file.Disable, "disabled"
		if enable {
			change, state = file.Enable, "enabled"
		}
		if err := change(ctx, name); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stderr, "\u2713 MCP server '%s' %s.\n", name, state)
	}
	return 0
}

// blockedBySettings is why mcp.allowed or mcp.excluded keep the server
// name from loading, in 0.61's words (canLoadServer); "" when they do not.
func blockedBySettings(m settings.MCP, name string) string {
	normalized := func(list []string) bool {
		return slices.ContainsFunc(list, func(s string) bool { return enablement.Normalize(s) == name })
	}
	switch {
	case m.Allowed != nil && !normalized(m.Allowed):
		return fmt.Sprintf("Server '%s' is not in mcp.allowed list. Add it to settings.json mcp.allowed array to enable.", name)
	case normalized(m.Excluded):
		return fmt.Sprintf("Server '%s' is blocked by mcp.excluded. Remove it from settings.json mcp.excluded array to enable.", name)
	}
	return ""
}
