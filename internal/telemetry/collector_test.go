package telemetry_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// collectorVersion is internal/otelcol's collector (its go.mod pins it);
// the binary is built once into ~/.cache/gemini-ls/otelcol-<version>.
const collectorVersion = "0.165.0"

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// collectorBinary builds internal/otelcol (its own module) once, or finds
// it built (make otelcol). A machine that cannot build it fails the test
// under CI and skips it elsewhere.
func collectorBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { buildBin, buildErr = buildCollector() })
	if buildErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("building the OpenTelemetry Collector (internal/otelcol): %v", buildErr)
		}
		t.Skipf("the OpenTelemetry Collector cannot be built here (make otelcol): %v", buildErr)
	}
	return buildBin
}

func buildCollector() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %w", err)
	}
	src, err := filepath.Abs(filepath.Join("..", "otelcol"))
	if err != nil {
		return "", err
	}
	// The sources' hash names the build, so an edited main.go or go.sum
	// is rebuilt rather than a stale binary run.
	h := sha256.New()
	for _, name := range []string{"main.go", "go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return "", fmt.Errorf("reading the collector's sources: %w", err)
		}
		h.Write(data)
	}
	dir := filepath.Join(cache, "gemini-ls", fmt.Sprintf("otelcol-%s-%x", collectorVersion, h.Sum(nil)[:6]))
	bin := filepath.Join(dir, "otelcol")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d", bin, os.Getpid())
	cmd := exec.Command("go", "build", "-trimpath", "-o", tmp, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=readonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %w\n%s", src, err, out)
	}
	return bin, os.Rename(tmp, bin)
}

// collector is a real OpenTelemetry Collector on loopback: OTLP in over
// grpc and http, everything it receives written as OTLP JSON to a file.
type collector struct {
	GRPC, HTTP string // endpoints, as telemetry.otlpEndpoint spells them
	out        string
	cmd        *exec.Cmd
	exited     chan struct{}
	stderr     syncBuffer
}

func startCollector(t *testing.T) *collector {
	t.Helper()
	bin := collectorBinary(t)
	dir := t.TempDir()
	grpcAddr, httpAddr := freeAddr(t), freeAddr(t)
	c := &collector{GRPC: "http://" + grpcAddr, HTTP: "http://" + httpAddr, out: filepath.Join(dir, "received.jsonl")}
	config := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %s
      http:
        endpoint: %s
exporters:
  file:
    path: %s
    format: json
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file]
    metrics:
      receivers: [otlp]
      exporters: [file]
`, grpcAddr, httpAddr, c.out)
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(bin, "--config", cfg)
	c.cmd.Stdout, c.cmd.Stderr = &c.stderr, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("starting the collector: %v", err)
	}
	c.exited = make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() { c.stop() })
	for _, addr := range []string{grpcAddr, httpAddr} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				conn.Close()
				break
			}
			select {
			case <-c.exited:
				t.Fatalf("the collector exited: %v\n%s", c.cmd.ProcessState, c.stderr.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("the collector does not listen on %s: %v\n%s", addr, err, c.stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return c
}

// stop ends the collector (SIGTERM: it flushes its exporters) and waits.
func (c *collector) stop() {
	select {
	case <-c.exited:
		return
	default:
	}
	if runtime.GOOS != "windows" {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// syncBuffer is the collector's output, written by exec's copier while
// a failing test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// received waits until the file holds every one of want, then stops the
// collector (which flushes the file) and returns all it received.
func (c *collector) received(t *testing.T, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(c.out)
		missing := ""
		for _, w := range want {
			if !strings.Contains(string(data), w) {
				missing = w
				break
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector did not receive %q in 30s; it has:\n%s\nits log:\n%s", missing, data, c.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.stop()
	data, err := os.ReadFile(c.out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
