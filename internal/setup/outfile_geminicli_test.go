package setup

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/geminicli"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/telemetry/outfile"
)

// everyHook is settings' "hooks" with one hook at each event, named
// h-EVENT, allowing whatever it hooks.
func everyHook(t *testing.T) string {
	t.Helper()
	hooks := map[string]any{}
	for _, event := range settings.HookEvents {
		hooks[event] = []any{map[string]any{"hooks": []any{map[string]any{
			"type": "command", "name": "h-" + event, "command": `echo '{"decision":"allow"}'`}}}}
	}
	data, err := json.Marshal(hooks)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// readingTurns are one prompt's model turns: a read_file call, an answer.
func readingTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.CallTurn(geminitest.Call("read_file", map[string]any{"file_path": "a.txt"})),
		geminitest.TextTurn("done"),
	}
}

// TestOutfileAsGeminiCLIWritesIt runs one prompt (the model reads a file,
// then answers) with a hook at every event, once in Gemini CLI 0.61 and
// once in gemini-ls, each against the fake model and writing
// telemetry.outfile; both files are read as 0.61's integration rig reads
// them (outfile). gemini-ls's has a hook_call for each hook that ran, for
// every event 0.61 logged one for, with what the rig's tests read of it;
// and each of its records is shaped as 0.61's record of the same event or
// metric: the same keys, the same JSON types, the same descriptors.
func TestOutfileAsGeminiCLIWritesIt(t *testing.T) {
	platformtest.UnixShell(t) // the hooks are sh command lines
	hooks := everyHook(t)
	theirs := geminiCLIOutfile(t, hooks)
	if len(theirs.HookLogs()) < 8 || len(theirs.ToolLogs()) != 1 {
		t.Fatalf("0.61's run logged %d hook calls and %d tool calls, not the run meant", len(theirs.HookLogs()), len(theirs.ToolLogs()))
	}
	ours := geminiLSOutfile(t, hooks)

	sameHookCalls(t, theirs.HookLogs(), ours.HookLogs())
	events := 0
	for _, r := range ours {
		name := r.EventName()
		if name == "" {
			continue
		}
		events++
		like := theirs.Events(name)
		if len(like) == 0 {
			t.Errorf("gemini-ls writes %s, 0.61 did not", name)
			continue
		}
		sameRecordShape(t, name, r, like[0])
	}
	if events == 0 {
		t.Fatal("the rig's reader finds no event in gemini-ls's outfile")
	}
	sameMetricShapes(t, theirs, ours)
}

// geminiCLIOutfile is what Gemini CLI 0.61 writes to its outfile for the
// prompt, with hooks.
func geminiCLIOutfile(t *testing.T, hooks string) outfile.File {
	t.Helper()
	srv := geminitest.NewTestServer(t, readingTurns()...)
	home, project := t.TempDir(), t.TempDir()
	out := filepath.Join(home, "telemetry.log")
	writeFile(t, filepath.Join(project, "a.txt"), "hello\n")
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), fmt.Sprintf(`{
		"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
		"model": {"skipNextSpeakerCheck": true},
		"experimental": {"useModelRouter": false},
		"general": {"enableAutoUpdate": false},
		"telemetry": {"enabled": true, "target": "local", "otlpEndpoint": "", "outfile": %q},
		"hooksConfig": {"enabled": true},
		"hooks": %s
	}`, out, hooks))
	cmd := geminicli.Command(t, home, project, srv.URL, "-m", "gemini-2.5-flash", "--approval-mode", "yolo", "-p", "read a.txt", "-o", "text")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Kill()
		case <-done:
		}
	}()
	output, err := cmd.CombinedOutput()
	close(done)
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, output)
	}
	f, err := outfile.Read(out)
	if err != nil || len(f) == 0 {
		t.Fatalf("Gemini CLI 0.61 wrote no outfile (%v):\n%s", err, output)
	}
	return f
}

// geminiLSOutfile is what gemini-ls writes to its outfile for the prompt,
// with hooks.
func geminiLSOutfile(t *testing.T, hooks string) outfile.File {
	t.Helper()
	e := newTelemetryEnv(t, `{"telemetry": {"enabled": true, "target": "local", "outfile": "telemetry.log", "logPrompts": true},
		"hooksConfig": {"enabled": true}, "hooks": `+hooks+`}`, readingTurns()...)
	e.mode = dialog.ApprovalYolo
	e.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true" // yolo is for trusted folders
	writeFile(t, filepath.Join(e.root, "a.txt"), "hello\n")
	b := e.build(t)
	s := b.Agent.NewSession()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if res, err := s.Prompt(ctx, dialog.Input{Text: "read a.txt"}, nil); err != nil || res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt = %+v, %v (warnings %q)", res, err, e.warnings)
	}
	b.Close()
	f, err := outfile.Read(filepath.Join(e.root, "telemetry.log"))
	if err != nil || len(f) == 0 {
		t.Fatalf("gemini-ls wrote no outfile (%v; warnings %q)", err, e.warnings)
	}
	return f
}

// sameHookCalls checks that every hook event 0.61 logged a hook call for
// has gemini-ls's too, as the rig's readHookLogs reads them.
func sameHookCalls(t *testing.T, theirs, ours []outfile.HookCall) {
	t.Helper()
	byEvent := map[string]outfile.HookCall{}
	for _, h := range ours {
		byEvent[h.HookEventName] = h
	}
	for _, want := range theirs {
		got, ok := byEvent[want.HookEventName]
		if !ok {
			t.Errorf("0.61 logged a %s hook call, gemini-ls did not (gemini-ls's: %v)", want.HookEventName, slices.Sorted(maps.Keys(byEvent)))
			continue
		}
		var input map[string]any
		text, _ := got.HookInput.(string)
		if err := json.Unmarshal([]byte(text), &input); err != nil || input["hook_event_name"] != want.HookEventName {
			t.Errorf("%s: hook_input %q (%v)", want.HookEventName, text, err)
		}
		if got.HookName != want.HookName || got.ExitCode != want.ExitCode || got.Success != want.Success ||
			got.Stdout != want.Stdout || got.Stderr != want.Stderr {
			t.Errorf("%s: gemini-ls %+v, 0.61 %+v", want.HookEventName, got, want)
		}
	}
}

// sameRecordShape checks that ours, a log record of event name, has the
// keys 0.61's record of it has, of the same types, and that each of its
// attributes is one 0.61's has, of the same type.
func sameRecordShape(t *testing.T, name string, ours, theirs outfile.Record) {
	t.Helper()
	// 0.61 ties a record emitted within a span to it; gemini-ls has none.
	if got, want := keysOf(ours), keysOf(theirs, "spanContext"); !slices.Equal(got, want) {
		t.Errorf("%s: gemini-ls's record has %v, 0.61's %v", name, got, want)
	}
	for _, key := range []string{"instrumentationScope", "_logRecordLimits", "_isReadonly"} {
		if !jsonEqual(ours[key], theirs[key]) {
			t.Errorf("%s: %s is %v, 0.61's %v", name, key, ours[key], theirs[key])
		}
	}
	for _, key := range []string{"hrTime", "hrTimeObserved", "_body", "_attributesCount", "_droppedAttributesCount"} {
		if shape(ours[key]) != shape(theirs[key]) {
			t.Errorf("%s: %s is %s, 0.61's %s", name, key, shape(ours[key]), shape(theirs[key]))
		}
	}
	sameResourceShape(t, name, ours["resource"], theirs["resource"])
	theirAttrs := theirs.Attributes()
	for key, v := range ours.Attributes() {
		their, ok := theirAttrs[key]
		switch {
		case !ok:
			t.Errorf("%s: gemini-ls sets %s, 0.61 does not", name, key)
		case shape(v) != shape(their):
			t.Errorf("%s: %s is %s, 0.61's %s", name, key, shape(v), shape(their))
		}
	}
}

// sameResourceShape checks a record's resource: 0.61's SDK Resource,
// attributes as [key, value] pairs.
func sameResourceShape(t *testing.T, name string, ours, theirs any) {
	t.Helper()
	o, _ := ours.(map[string]any)
	th, _ := theirs.(map[string]any)
	if !slices.Equal(keysOf(o), keysOf(th)) {
		t.Errorf("%s: resource has %v, 0.61's %v", name, keysOf(o), keysOf(th))
		return
	}
	pairs, _ := o["_rawAttributes"].([]any)
	service := false
	for _, p := range pairs {
		kv, _ := p.([]any)
		if len(kv) != 2 || shape(kv[0]) != "string" {
			t.Errorf("%s: resource attribute %v is not a [key, value] pair", name, p)
			continue
		}
		service = service || kv[0] == "service.name" && kv[1] == "gemini-cli"
	}
	if !service {
		t.Errorf("%s: resource %v has no service.name gemini-cli", name, pairs)
	}
}

// sameMetricShapes checks each metric gemini-ls writes against 0.61's of
// the same name: its record, descriptor, data points and values.
func sameMetricShapes(t *testing.T, theirs, ours outfile.File) {
	t.Helper()
	var records []outfile.Record
	for _, f := range []outfile.File{theirs, ours} {
		for _, r := range f {
			if _, ok := r["scopeMetrics"]; ok {
				records = append(records, r)
				break
			}
		}
	}
	if len(records) != 2 {
		t.Fatalf("metrics records: %d of the two files have one", len(records))
	}
	if !slices.Equal(keysOf(records[1]), keysOf(records[0])) {
		t.Errorf("gemini-ls's metrics record has %v, 0.61's %v", keysOf(records[1]), keysOf(records[0]))
	}
	seen := map[string]bool{}
	for _, m := range ours.Metrics() {
		if seen[m.Name()] {
			continue
		}
		seen[m.Name()] = true
		their, ok := theirs.Metric(m.Name())
		if !ok {
			t.Errorf("gemini-ls writes metric %s, 0.61 did not", m.Name())
			continue
		}
		sameMetricShape(t, m, their)
	}
	if len(seen) == 0 {
		t.Error("the rig's reader finds no metric in gemini-ls's outfile")
	}
}

func sameMetricShape(t *testing.T, ours, theirs outfile.Metric) {
	t.Helper()
	name := ours.Name()
	if !jsonEqual(ours.Descriptor, theirs.Descriptor) {
		t.Errorf("%s: descriptor %v, 0.61's %v", name, ours.Descriptor, theirs.Descriptor)
	}
	if !slices.Equal(keysOf(ours.Raw), keysOf(theirs.Raw)) {
		t.Errorf("%s: %v, 0.61's %v", name, keysOf(ours.Raw), keysOf(theirs.Raw))
	}
	for _, key := range []string{"aggregationTemporality", "dataPointType", "isMonotonic"} {
		if !jsonEqual(ours.Raw[key], theirs.Raw[key]) {
			t.Errorf("%s: %s %v, 0.61's %v", name, key, ours.Raw[key], theirs.Raw[key])
		}
	}
	if len(ours.DataPoints) == 0 || len(theirs.DataPoints) == 0 {
		t.Errorf("%s: %d data points, 0.61's %d", name, len(ours.DataPoints), len(theirs.DataPoints))
		return
	}
	o, th := ours.DataPoints[0], theirs.DataPoints[0]
	if !slices.Equal(keysOf(o), keysOf(th)) || shape(o["value"]) != shape(th["value"]) || shape(o["startTime"]) != shape(th["startTime"]) {
		t.Errorf("%s: data point %v, 0.61's %v", name, o, th)
	}
	if v, ok := o["value"].(map[string]any); ok {
		if !slices.Equal(keysOf(v), keysOf(th["value"].(map[string]any))) {
			t.Errorf("%s: histogram value %v, 0.61's %v", name, v, th["value"])
		}
	}
}

// keysOf is m's keys, sorted, less those left out.
func keysOf(m map[string]any, leaveOut ...string) []string {
	var out []string
	for k := range m {
		if !slices.Contains(leaveOut, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// shape is v's JSON type.
func shape(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
