package builtin_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// /model lists 0.61's choices (its model dialog's: Auto, then the manual
// models), marking the current one; /model set switches the next
// request's model, any name taken as 0.61 takes it; --persist also saves
// model.name in the user's settings, which the next process starts with.
func TestModel(t *testing.T) {
	h := newHarness(t, geminitest.TextTurn("from flash"))
	userFile := h.write("~/.gemini/settings.json", "{\n  // mine\n  \"ui\": {}\n}\n")
	delete(h.env, "GEMINI_MODEL")
	env := h.conversation()

	got := h.answer(env, "/model")
	for _, want := range []string{
		"Select Model (current: Auto)\n",
		"- `auto` (Auto) — Picks the model for each prompt: gemini-3.1-pro-preview for complex tasks, gemini-3.8-flash for the rest ← current\n",
		"\nManual:\n- `gemini-3.1-pro-preview-customtools` (gemini-3.1-pro-preview)\n- `gemini-3-flash-preview`\n- `gemini-2.5-pro`\n",
		"`/model set <model-name> [--persist]`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/model lacks %q:\n%s", want, got)
		}
	}
	if manage := h.answer(env, "/model manage"); manage != got {
		t.Errorf("/model manage = %q, want /model's answer", manage)
	}

	if got := h.answer(env, "/model set gemini-3.8-flash"); got != "Model set to gemini-3.8-flash" {
		t.Errorf("/model set = %q", got)
	}
	if got := readText(t, userFile); strings.Contains(got, "gemini-3.8-flash") {
		t.Errorf("/model set without --persist wrote the settings:\n%s", got)
	}
	if got := h.answer(env, "/model"); !strings.Contains(got, "(current: gemini-3.8-flash)") || !strings.Contains(got, "- `gemini-3.8-flash` ← current\n") || strings.Count(got, "← current") != 1 {
		t.Errorf("/model after /model set:\n%s", got)
	}
	if got := h.answer(env, "/about"); !strings.Contains(got, "- Model: gemini-3.8-flash\n") {
		t.Errorf("/about after /model set:\n%s", got)
	}
	h.prompt(env, "hi")
	if reqs := h.model.Requests(); len(reqs) != 1 || reqs[0].Model != "gemini-3.8-flash" {
		t.Errorf("the prompt after /model set went to %+v", reqs)
	}

	reply, err := h.run(env, "/model set my-tuned-model --persist")
	if err != nil || reply.Text != "Model set to my-tuned-model (persisted)" || reply.Model != "my-tuned-model" {
		t.Errorf("/model set --persist = %+v, %v", reply, err)
	}
	if got := readText(t, userFile); got != "{\n  \"model\": {\n    \"name\": \"my-tuned-model\"\n  },\n  // mine\n  \"ui\": {}\n}\n" {
		t.Errorf("user settings after --persist:\n%s", got)
	}
	if got := h.answer(env, "/model"); !strings.Contains(got, "The current model, `my-tuned-model`, is none of these.") {
		t.Errorf("/model with a model not offered:\n%s", got)
	}
	if got := h.answer(h.conversation(), "/about"); !strings.Contains(got, "- Model: my-tuned-model\n") {
		t.Errorf("/about in the next process:\n%s", got)
	}

	for line, want := range map[string]string{
		"/model set":                 "no model name; usage: /model set <model-name> [--persist]",
		"/model set a b":             `one model name, not "a" and "b"`,
		"/model set a --keep":        `unknown option "--keep"`,
		"/model pick gemini-2.5-pro": `unknown /model subcommand "pick"`,
	} {
		if err := h.fails(env, line); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
	if got := env.Built.Agent.ModelSetting(); got != "my-tuned-model" {
		t.Errorf("after the refused commands the model is %q", got)
	}
}

// --persist with a settings file that cannot be edited sets nothing, and
// says why.
func TestModelPersistRefused(t *testing.T) {
	h := newHarness(t)
	userFile := h.write("~/.gemini/settings.json", "[]")
	env := h.conversation()
	err := h.fails(env, "/model set gemini-2.5-flash --persist")
	if !strings.Contains(err.Error(), "the model was not set: saving it in "+userFile) {
		t.Errorf("error %v", err)
	}
	if got := env.Built.Agent.ModelSetting(); got != "gemini-2.5-pro" {
		t.Errorf("the model became %q", got)
	}
}
