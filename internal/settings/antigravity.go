package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/configfiles"
)

// Antigravity CLI (agy), to which Google moved Gemini CLI's individual
// users, keeps its MCP servers in files of its own. Their format is read
// only as public sources show it (docs/configuration.md cites them):
// {"mcpServers": {name: server}}, a server being a command (command,
// args, env), a streamable HTTP endpoint (serverUrl, which wins over
// command), or a url with an optional type; headers, disabled,
// disabledTools and authProviderType "google_credentials" beside them;
// unknown keys are tolerated, as agy tolerates them.

// AntigravityUserMCPFiles are the user's Antigravity MCP files, read in
// every folder: the one the Antigravity apps share, then the CLI's own.
func AntigravityUserMCPFiles(userDir string) []string {
	if userDir == "" {
		return nil
	}
	return []string{
		filepath.Join(userDir, "config", "mcp_config.json"),
		filepath.Join(userDir, "antigravity-cli", "mcp_config.json"),
	}
}

// AntigravityProjectMCPFile is a root's Antigravity MCP file, read only
// in a trusted folder.
func AntigravityProjectMCPFile(root string) string {
	return configfiles.AntigravityMCP(root)
}

// AntigravityFile is what became of one Antigravity file gemini-ls looks
// for: Read when any of it was used, and Detail, what was taken and what
// was not and why, in a few words each.
type AntigravityFile struct {
	Path   string
	Read   bool
	Detail []string
}

// AntigravityFiles are the Antigravity MCP files found, in the order they
// were read, with what was taken of each; Load sets them.
func (s Settings) AntigravityFiles() []AntigravityFile {
	return slices.Clone(s.antigravity)
}

// antigravityServer is one server of an Antigravity mcp_config.json, the
// keys public sources document.
type antigravityServer struct {
	Command          string            `json:"command"`
	Args             []string          `json:"args"`
	Env              map[string]string `json:"env"`
	ServerURL        string            `json:"serverUrl"`
	URL              string            `json:"url"`
	Type             string            `json:"type"`
	Headers          map[string]string `json:"headers"`
	Disabled         bool              `json:"disabled"`
	DisabledTools    []string          `json:"disabledTools"`
	AuthProviderType string            `json:"authProviderType"`
	OAuth            json.RawMessage   `json:"oauth"`
}

// addAntigravityServers adds to s the servers of the user's Antigravity
// MCP files and, for each trusted root, the root's; a name settings.json
// gives is kept as settings.json has it, and a root's file wins over the
// user's. Each file found is reported (AntigravityFiles); its problems
// are returned too.
func (s *Settings) addAntigravityServers(getenv Getenv, roots []string, trust Trust, given map[string]string) []error {
	var problems []error
	found := map[string]MCPServer{}
	read := func(path string) {
		file, servers, err := readAntigravityMCP(path, getenv, given)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			problems = append(problems, err)
		}
		for name, srv := range servers {
			found[name] = srv
		}
		s.antigravity = append(s.antigravity, file)
	}
	for _, path := range AntigravityUserMCPFiles(UserDir(getenv)) {
		read(path)
	}
	for _, root := range roots {
		path := AntigravityProjectMCPFile(root)
		if why := trust.Why(root); why != nil {
			s.reportUntrusted(path, why)
			continue
		}
		read(path)
	}
	s.mergeAntigravity(found)
	return problems
}

// reportUntrusted records an untrusted root's Antigravity file, if there
// is one, as not read and why.
func (s *Settings) reportUntrusted(path string, why error) {
	if _, err := os.Lstat(path); err != nil {
		return
	}
	s.antigravity = append(s.antigravity, AntigravityFile{Path: path,
		Detail: []string{fmt.Sprintf("not read: a workspace's MCP servers apply only in a trusted folder (%v)", why)}})
}

// mergeAntigravity adds found under s.MCPServers, settings.json winning a
// name both give, and says so in the file that lost it.
func (s *Settings) mergeAntigravity(found map[string]MCPServer) {
	for name, srv := range found {
		if _, taken := s.MCPServers[name]; taken {
			s.noteShadowed(name)
			continue
		}
		if s.MCPServers == nil {
			s.MCPServers = map[string]MCPServer{}
		}
		s.MCPServers[name] = srv
	}
}

// noteShadowed says, in each report that took the server name, that
// settings.json's server of that name is used instead.
func (s *Settings) noteShadowed(name string) {
	for i, f := range s.antigravity {
		taken := "server " + quoteName(name) + ": read"
		if j := slices.Index(f.Detail, taken); j >= 0 {
			s.antigravity[i].Detail[j] = "server " + quoteName(name) + ": not used: settings.json has a server of that name, which wins"
		}
	}
}

// readAntigravityMCP reads one Antigravity mcp_config.json: the servers
// gemini-ls can run, and the report of the file; values variables gave
// are added to given (redacted as settings' are). fs.ErrNotExist when
// there is no file.
func readAntigravityMCP(path string, getenv Getenv, given map[string]string) (AntigravityFile, map[string]MCPServer, error) {
	report := AntigravityFile{Path: path}
	obj, err := readJSONObject(path)
	if errors.Is(err, fs.ErrNotExist) {
		return report, nil, err
	}
	if err != nil {
		report.Detail = []string{fmt.Sprintf("not read: %v", err)}
		return report, nil, err
	}
	raw, ok := obj["mcpServers"].(map[string]any)
	if !ok {
		report.Detail = []string{"not read: it has no \"mcpServers\" object, so Antigravity reads no server from it either"}
		return report, nil, nil
	}
	if err := expandFile(raw, getenv, given); err != nil {
		report.Detail = []string{fmt.Sprintf("not read: %v", err)}
		return report, nil, &FileError{Path: path, Err: err}
	}
	servers := map[string]MCPServer{}
	for _, name := range sortedKeys(raw) {
		srv, why := antigravityToServer(raw[name])
		if why != "" {
			report.Detail = append(report.Detail, "server "+quoteName(name)+": not read: "+why)
			continue
		}
		servers[name] = srv
		report.Detail = append(report.Detail, "server "+quoteName(name)+": read")
	}
	report.Read = len(servers) > 0
	return report, servers, nil
}

// antigravityToServer is gemini-ls's server for one Antigravity server,
// or why it is not read.
func antigravityToServer(v any) (MCPServer, string) {
	var a antigravityServer
	if err := fromMap(map[string]any{"server": v}, &struct {
		Server *antigravityServer `json:"server"`
	}{&a}); err != nil {
		return MCPServer{}, strings.TrimPrefix(err.Error(), "server.")
	}
	switch {
	case a.Disabled:
		return MCPServer{}, "\"disabled\": true"
	case len(a.OAuth) > 0 && string(a.OAuth) != "null":
		return MCPServer{}, "its \"oauth\" block has no public description of Antigravity's fields"
	case a.AuthProviderType != "" && a.AuthProviderType != MCPAuthGoogleCredentials:
		return MCPServer{}, fmt.Sprintf("authProviderType %q is not one Antigravity documents", a.AuthProviderType)
	}
	srv := MCPServer{Headers: a.Headers, ExcludeTools: a.DisabledTools, AuthProviderType: a.AuthProviderType}
	switch {
	case a.ServerURL != "":
		srv.HTTPURL = a.ServerURL
	case a.URL != "":
		if a.Type != "" && a.Type != MCPTypeHTTP && a.Type != MCPTypeSSE {
			return MCPServer{}, fmt.Sprintf("type %q is not a transport gemini-ls knows (http, sse)", a.Type)
		}
		srv.URL, srv.Type = a.URL, a.Type
	case a.Command != "":
		srv.Command, srv.Args, srv.Env = a.Command, a.Args, a.Env
	default:
		return MCPServer{}, "it has no command, serverUrl or url to connect to"
	}
	return srv, ""
}

func quoteName(name string) string { return "`" + name + "`" }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
