package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

type agentSet map[string]bool

func (s agentSet) HasAgent(name string) bool { return s[name] }

// invoke_agent is declared as Gemini CLI 0.61 declares it (bundle
// chunk-JDPZ4CE3.js:353278-353298), word for word.
func TestInvokeAgentDeclaration(t *testing.T) {
	d := NewInvokeAgent(agentSet{}).Declaration()
	got, err := json.Marshal(map[string]any{"name": d.Name, "description": d.Description, "parameters": d.ParametersJsonSchema})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"description":"Invoke a subagent to perform a specific task or investigation.","name":"invoke_agent","parameters":{"properties":{"agent_name":{"description":"Name of the subagent to invoke","type":"string"},"prompt":{"description":"The COMPLETE query to send the subagent. MUST be comprehensive and detailed. Include all context, background, questions, and expected output format. Do NOT send brief or incomplete instructions.","type":"string"}},"required":["agent_name","prompt"],"type":"object"}}`
	var a, b any
	_ = json.Unmarshal(got, &a)
	_ = json.Unmarshal([]byte(want), &b)
	ga, _ := json.Marshal(a)
	gb, _ := json.Marshal(b)
	if string(ga) != string(gb) {
		t.Errorf("declared\n%s\nwant\n%s", ga, gb)
	}
	if !AnnotationsOf(NewInvokeAgent(nil)).Delegates {
		t.Error("invoke_agent does not say it delegates")
	}
}

// An unknown agent is 0.61's error; a known one's call says what it
// does and runs through the Delegator the agent gives it.
func TestInvokeAgentBuild(t *testing.T) {
	tool := NewInvokeAgent(agentSet{"helper": true})
	if _, err := tool.Build(map[string]any{"agent_name": "nobody", "prompt": "x"}); err == nil || err.Error() != "Subagent 'nobody' not found." {
		t.Errorf("unknown agent: %v", err)
	}
	if _, err := tool.Build(map[string]any{"agent_name": "helper"}); err == nil || !strings.Contains(err.Error(), "prompt") {
		t.Errorf("no prompt: %v", err)
	}
	c, err := tool.Build(map[string]any{"agent_name": "helper", "prompt": "do it"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Title() != "Delegating to agent 'helper'" || kindOf(tool) != dialog.KindAgent || c.Confirmation() != nil {
		t.Errorf("call %q %q %v", c.Title(), kindOf(tool), c.Confirmation())
	}
	if _, err := c.Execute(context.Background(), CallInfo{}); err == nil {
		t.Error("ran without a Delegator")
	}
	res, err := c.Execute(context.Background(), CallInfo{Delegate: func(_ context.Context, name, prompt string) (Result, error) {
		return Result{Output: name + ": " + prompt}, nil
	}})
	if err != nil || res.Output != "helper: do it" {
		t.Errorf("delegated: %+v, %v", res, err)
	}
}

// complete_task takes the report as 0.61 does: its default "result"
// string, refused when empty in 0.61's words; a structured report
// checked against its schema and formatted by Format; the first handed
// in is kept.
func TestCompleteTask(t *testing.T) {
	def, err := NewCompleteTask(nil)
	if err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(def.Declaration().ParametersJsonSchema)
	if !strings.Contains(string(params), `"result":{"description":"Your final results or findings to return to the orchestrator. Ensure this is comprehensive and follows any formatting requested in your instructions.","type":"string"}`) ||
		def.Declaration().Description != "Call this tool to submit your final findings and complete the task. This is the ONLY way to finish." {
		t.Errorf("default declaration %s: %s", def.Declaration().Description, params)
	}
	if _, err := def.Build(map[string]any{"result": "  "}); err == nil || err.Error() != `Missing required "result" argument. You must provide your findings when calling complete_task.` {
		t.Errorf("empty result: %v", err)
	}
	if _, done := def.Submitted(); done {
		t.Fatal("submitted before a call")
	}
	for _, r := range []string{"first", "second"} {
		c, err := def.Build(map[string]any{"result": r})
		if err != nil {
			t.Fatal(err)
		}
		if res, _ := c.Execute(context.Background(), CallInfo{}); res.Output != "Result submitted and task completed." {
			t.Errorf("answered %+v", res)
		}
	}
	if got, done := def.Submitted(); !done || got != "first" {
		t.Errorf("submitted %q %v", got, done)
	}

	out, err := NewCompleteTask(&TaskOutput{Name: "report", Description: "The report.", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Format: func(r any) string { return "n is " + string(must(json.Marshal(r.(map[string]any)["n"]))) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Build(map[string]any{}); err == nil || err.Error() != "Missing required argument 'report' for completion." {
		t.Errorf("no report: %v", err)
	}
	if _, err := out.Build(map[string]any{"report": map[string]any{"n": "x"}}); err == nil || !strings.HasPrefix(err.Error(), "Output validation failed: ") {
		t.Errorf("bad report: %v", err)
	}
	c, err := out.Build(map[string]any{"report": map[string]any{"n": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := c.Execute(context.Background(), CallInfo{}); res.Output != "Output submitted and task completed." {
		t.Errorf("answered %+v", res)
	}
	if got, _ := out.Submitted(); got != "n is 3" {
		t.Errorf("submitted %q", got)
	}
	if !AnnotationsOf(out).ReadOnly {
		t.Error("complete_task is not read-only: plan mode would refuse it")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
