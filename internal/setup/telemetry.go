package setup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/gemini-ls/gemini-ls/internal/auth"
	"github.com/gemini-ls/gemini-ls/internal/configfiles"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// telemetryShutdown bounds the flush at exit: an unreachable collector
// must not hold gemini-ls up (0.61 does not wait for its exporters either).
const telemetryShutdown = 5 * time.Second

// startTelemetry makes the settings' telemetry (telemetry.Nop when off)
// and sends gemini_cli.config, as 0.61 does at start-up. A setting it
// cannot use (a bad target or protocol, target gcp without a collector,
// an outfile it cannot open) turns it off with a warning: the rest of the
// build goes on.
func (b *Built) startTelemetry(ctx context.Context, set settings.Settings, creds auth.Auth) telemetry.Sink {
	o := b.opts
	r := set.Telemetry.Resolve(b.Getenv)
	if !r.Enabled {
		return telemetry.Nop{}
	}
	outfile, err := b.telemetryOutfile(set, r.Outfile)
	if err != nil {
		o.Warn("telemetry is off", err)
		return telemetry.Nop{}
	}
	secrets := telemetry.SecretEnv(os.Environ())
	secrets = append(secrets, creds.Config.APIKey)
	for _, name := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_ACCESS_TOKEN"} {
		secrets = append(secrets, b.Getenv(name)) // the .env file's too
	}
	id, err := installationID(settings.UserDir(b.Getenv))
	if err != nil {
		o.Warn("telemetry goes without installation.id", err)
	}
	sink, err := telemetry.New(ctx, telemetry.Options{
		Config: telemetry.Config{
			Enabled:      true,
			Target:       r.Target,
			OTLPEndpoint: r.OTLPEndpoint,
			OTLPProtocol: r.OTLPProtocol,
			Outfile:      outfile,
			LogPrompts:   r.LogPrompts,
			UseCollector: r.UseCollector,
		},
		Version:        o.Version,
		InstallationID: id,
		Interactive:    !o.Unattended,
		AuthType:       creds.Type,
		Secrets:        secrets,
	})
	if err != nil {
		o.Warn("telemetry is off", err)
		return telemetry.Nop{}
	}
	var servers, exts []string
	for name := range set.MCPServers {
		servers = append(servers, name)
	}
	slices.Sort(servers)
	for _, e := range b.Extensions.Active() {
		exts = append(exts, e.Name)
	}
	sink.Config(telemetry.StartSession{
		Model:            b.Model,
		ApprovalMode:     string(b.ApprovalMode),
		APIKeyEnabled:    creds.Type == auth.GeminiAPIKey,
		VertexAIEnabled:  creds.Type == auth.VertexAI,
		RespectGitIgnore: set.Context.FileFiltering.RespectsGitIgnore(),
		MCPServers:       servers,
		Extensions:       exts,
	})
	return sink
}

// telemetryOutfile is where the settings' outfile (as the environment
// resolved it) is opened: relative to the project's root, as 0.61 opens
// it from its working directory. One the user chose (their settings, the
// system's, their own environment or ~/.env) is taken as given. One that
// something of the workspace chose (its .gemini/settings.json, a .env
// other than the user's, the editor's settings, which may be a project's
// own) must lie inside the project's roots, its links resolved, and not
// be a protected file (internal/protected): gemini-ls appends the
// prompts and the model's answers to it, as JSON, and a shell reading a
// quoted "$(…)" in ~/.bashrc or a git hook would run it, and a JSON line
// at the end of a settings file or a subagent's markdown changes what
// they say. A trusted folder's hooks are asked about and shown; an
// outfile would write all the same, so it is held to the project.
// Gemini CLI 0.61 takes the outfile from any settings file or .env
// (docs/cli/telemetry.md's example is a project's .gemini/telemetry.log,
// which is refused here as every file under .gemini is protected: the
// refusal says to set it in ~/.gemini/settings.json). The path returned
// is the resolved one, which the check was of.
func (b *Built) telemetryOutfile(set settings.Settings, outfile string) (string, error) {
	if outfile == "" {
		return "", nil
	}
	abs := outfile
	if !filepath.IsAbs(abs) && len(b.projectRoots) > 0 {
		abs = filepath.Join(b.projectRoots[0], abs)
	}
	if b.usersOutfile(outfile) {
		return abs, nil
	}
	real, err := workspace.RealPath(abs)
	if err != nil {
		return "", fmt.Errorf("telemetry.outfile %s, which the workspace sets, could not be resolved: %w", outfile, err)
	}
	named := outfile
	if real != outfile {
		named = outfile + " (" + real + ")"
	}
	fix := "to write telemetry there, set telemetry.outfile in ~/.gemini/settings.json or GEMINI_TELEMETRY_OUTFILE in your own environment"
	if !slices.ContainsFunc(b.projectRoots, func(root string) bool { return real != root && workspace.Within(root, real) }) {
		return "", fmt.Errorf("telemetry.outfile %s is set by the workspace (its settings, its .env or the editor's settings for it) and lies outside the workspace, "+
			"where a workspace may not have gemini-ls append its prompts and answers; %s", named, fix)
	}
	if why := b.protectedFiles(set).Why(real); why != "" {
		return "", fmt.Errorf("telemetry.outfile %s is set by the workspace (its settings, its .env or the editor's settings for it) and is protected, because %s: "+
			"gemini-ls does not append its prompts and answers to it; %s", named, why, fix)
	}
	if fi, err := os.Lstat(real); err == nil && !fi.Mode().IsRegular() {
		// A FIFO would hold the start-up until something read it.
		return "", fmt.Errorf("telemetry.outfile %s is set by the workspace and is %s, not a regular file; %s", named, safefile.DescribeMode(fi.Mode()), fix)
	}
	return real, nil
}

// usersOutfile reports whether outfile is what the user's own settings
// and environment give, without anything of the workspace: the system's
// and the user's settings files, the process environment and a .env of
// the user's (~/.env, ~/.gemini/.env).
func (b *Built) usersOutfile(outfile string) bool {
	getenv := b.opts.Getenv
	if home := settings.Home(getenv); home != "" && b.EnvFile != "" &&
		(b.EnvFile == filepath.Join(home, configfiles.Env) || b.EnvFile == configfiles.In(home, configfiles.Env)) {
		getenv = b.Getenv
	}
	user, _ := settings.Load(getenv, nil, b.Trust) // its problems were told when the settings were read
	return user.Telemetry.Resolve(getenv).Outfile == outfile
}

// closeTelemetry flushes what is pending and stops the exporters.
func (b *Built) closeTelemetry() {
	if b.telemetry == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetryShutdown)
	defer cancel()
	if err := b.telemetry.Shutdown(ctx); err != nil {
		b.opts.Warn("telemetry was not all sent", err)
	}
}

// installationID is ~/.gemini/installation_id, Gemini CLI's, made as 0.61
// makes it (a random UUID) when there is none, so both tools report one.
func installationID(userDir string) (string, error) {
	if userDir == "" {
		return "", errors.New("no home directory to keep installation_id in")
	}
	path := filepath.Join(userDir, "installation_id")
	data, err := os.ReadFile(path)
	if id := strings.TrimSpace(string(data)); err == nil && id != "" {
		return id, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	id := uuid.NewString()
	if err := os.MkdirAll(userDir, 0o700); err != nil {
		return "", fmt.Errorf("making %s: %w", userDir, err)
	}
	if err := os.WriteFile(path, []byte(id), 0o600); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return id, nil
}
