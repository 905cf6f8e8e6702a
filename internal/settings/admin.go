package settings

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Admin is the "admin" object: an administrator's locks on features.
// Gemini CLI 0.61 takes it from Code Assist's admin controls alone and
// drops whatever a settings file writes there (computeMergedSettings);
// gemini-ls, which fetches no admin controls, takes it from the system
// settings file alone, the administrator's, so that a lock written there
// holds. Load and With keep every other file and the editor from
// loosening it.
type Admin struct {
	// SecureModeEnabled refuses yolo and every "always allow", as
	// security.disableYoloMode and security.disableAlwaysAllow do
	// (withAdminLocks).
	SecureModeEnabled bool        `json:"secureModeEnabled"`
	Extensions        AdminSwitch `json:"extensions"`
	MCP               AdminMCP    `json:"mcp"`
	Skills            AdminSwitch `json:"skills"`
}

// AdminSwitch is an admin object with an "enabled": on unless false.
type AdminSwitch struct {
	Enabled *bool `json:"enabled"`
}

// On reports whether the feature is allowed.
func (a AdminSwitch) On() bool { return a.Enabled == nil || *a.Enabled }

// AdminMCP is admin.mcp: whether MCP servers may be used, which of the
// user's (Config, an allowlist by name) and which the administrator's
// own, always there (RequiredConfig).
type AdminMCP struct {
	Enabled        *bool                     `json:"enabled"`
	Config         map[string]AdminMCPServer `json:"config"`
	RequiredConfig map[string]AdminMCPServer `json:"requiredConfig"`
}

// On reports whether MCP servers may be used.
func (a AdminMCP) On() bool { return a.Enabled == nil || *a.Enabled }

// AdminMCPServer is an entry of admin.mcp.config or requiredConfig, the
// fields 0.61 takes from it (applyAdminAllowlist, applyRequiredServers):
// only remote servers, never a command.
type AdminMCPServer struct {
	URL              string            `json:"url"`
	Type             string            `json:"type"`
	Trust            *bool             `json:"trust"`
	IncludeTools     []string          `json:"includeTools"`
	ExcludeTools     []string          `json:"excludeTools"`
	Headers          map[string]string `json:"headers"`
	Timeout          int               `json:"timeout"`
	AuthProviderType string            `json:"authProviderType"`
	OAuth            *MCPOAuth         `json:"oauth"`
}

// AdminMCPResult is what admin.mcp made of the MCP servers.
type AdminMCPResult struct {
	Servers map[string]MCPServer
	// Blocked are the user's servers the allowlist left out; Required
	// the administrator's servers put in. Both sorted.
	Blocked, Required []string
}

// WithAdminMCP is s with admin.mcp applied to its MCP servers (the
// files' and the extensions', so call it after they are joined), as
// 0.61's loadCliConfig applies it: none when admin.mcp.enabled is false;
// else, when admin.mcp.config names any, only the servers it names, each
// connected as the administrator says (url, type, trust; tools too when
// the administrator lists any), and then every admin.mcp.requiredConfig
// server, replacing the user's of that name, trusted unless it says not.
func (s Settings) WithAdminMCP() (Settings, AdminMCPResult) {
	admin := s.Admin.MCP
	if !admin.On() {
		s.MCPServers = nil
		return s, AdminMCPResult{}
	}
	var res AdminMCPResult
	servers := maps.Clone(s.MCPServers)
	if len(admin.Config) > 0 {
		servers, res.Blocked = allowlisted(servers, admin.Config)
	}
	for _, name := range slices.Sorted(maps.Keys(admin.RequiredConfig)) {
		if servers == nil {
			servers = map[string]MCPServer{}
		}
		servers[name] = required(admin.RequiredConfig[name])
		res.Required = append(res.Required, name)
	}
	s.MCPServers = servers
	res.Servers = servers
	return s, res
}

// allowlisted are the servers the allowlist names, merged with its
// entries as 0.61's applyAdminAllowlist merges them, and the names of
// the others.
func allowlisted(servers map[string]MCPServer, allow map[string]AdminMCPServer) (map[string]MCPServer, []string) {
	kept := map[string]MCPServer{}
	var blocked []string
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		a, ok := allow[name]
		if !ok {
			blocked = append(blocked, name)
			continue
		}
		local := servers[name]
		// The user chooses neither how the server is reached nor whether
		// it is trusted.
		local.Command, local.Args, local.Env, local.Cwd, local.HTTPURL = "", nil, nil, "", ""
		local.URL, local.Type, local.Trust = a.URL, a.Type, a.Trust != nil && *a.Trust
		if len(a.IncludeTools) > 0 || len(a.ExcludeTools) > 0 {
			local.IncludeTools, local.ExcludeTools = a.IncludeTools, a.ExcludeTools
		}
		kept[name] = local
	}
	return kept, blocked
}

// required is an admin.mcp.requiredConfig entry as a server: remote
// only, trusted unless it says not (0.61's applyRequiredServers).
func required(a AdminMCPServer) MCPServer {
	return MCPServer{
		URL: a.URL, Type: a.Type, Headers: a.Headers, Timeout: a.Timeout,
		Trust:        a.Trust == nil || *a.Trust,
		IncludeTools: a.IncludeTools, ExcludeTools: a.ExcludeTools,
		AuthProviderType: a.AuthProviderType, OAuth: a.OAuth,
	}
}

// AdminBlockedMCPMessage is 0.61's warning for the servers the admin
// allowlist left out (getAdminBlockedMcpServersMessage).
func AdminBlockedMCPMessage(blocked []string) string {
	n := len(blocked)
	serverText, pronoun := "servers are", "them"
	if n == 1 {
		serverText, pronoun = "server is", "it"
	}
	return fmt.Sprintf("%d MCP %s not allowlisted by your administrator. To enable %s, please request an update to the settings at: %s", n, serverText, pronoun, manageURL)
}

// AdminRequiredMCPMessage is 0.61's note of the servers the administrator
// put in.
func AdminRequiredMCPMessage(required []string) string {
	return "Admin-required MCP servers injected: " + strings.Join(required, ", ")
}

// manageURL is where 0.61 sends the user to ask for an admin control to
// change.
const manageURL = "https://goo.gle/manage-gemini-cli"

// AdminDisabledMessage is 0.61's refusal of a feature an administrator
// turned off (getAdminErrorMessage), feature being its name for it:
// "MCP", "Extensions", "Agent skills", "YOLO mode".
func AdminDisabledMessage(feature string) string {
	return feature + " is disabled by your administrator. To enable it, please request an update to the settings at: " + manageURL
}

// withAdminLocks is s with the locks of admin that other settings carry
// applied to them: secure mode sets security.disableYoloMode and
// security.disableAlwaysAllow, so whatever reads those obeys it, and
// admin.skills.enabled false turns the skills off.
func (s Settings) withAdminLocks() Settings {
	if s.Admin.SecureModeEnabled {
		s.Security.DisableYoloMode = true
		s.Security.DisableAlwaysAllow = true
		s.Security.EnablePermanentToolApproval = false
	}
	if !s.Admin.Skills.On() {
		off := false
		s.Skills.Enabled = &off
	}
	return s
}

// LoadAdmin is the admin object of the system settings file alone, as
// Load takes it: for what needs only the locks (the management
// commands). A file that cannot be used locks nothing; Load tells why.
func LoadAdmin(getenv Getenv) Admin {
	obj, _ := readLayer(SystemSettingsPath(getenv), getenv, map[string]string{})
	var sys Settings
	if obj == nil || fromMap(obj, &sys) != nil {
		return Admin{}
	}
	return sys.Admin
}
