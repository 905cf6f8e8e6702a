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
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/telemetry"
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
	outfile := r.Outfile
	if outfile != "" && !filepath.IsAbs(outfile) {
		// 0.61 opens it from its working directory, the project's root.
		if roots := b.projectRoots; len(roots) > 0 {
			outfile = filepath.Join(roots[0], outfile)
		}
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
