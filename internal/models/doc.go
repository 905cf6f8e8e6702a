// Package models names Gemini's models and resolves what a user may ask
// for (model.name, GEMINI_MODEL, --model) to the concrete model a request
// is sent to, as Gemini CLI 0.61's config/models.ts resolveModel and
// resolveClassifierModel do for a Gemini API key (where 0.61 assumes access
// to preview models, Gemini 3.1 and the latest Flash and Flash-Lite). An
// alias (auto, pro, flash, ...) is never sent to the API. A model named
// with a dotted Gemini 3 version (gemini-3.5-flash) is sent as written,
// as Gemini CLI does after 0.61 (#29982), and a name that differs from a
// known one only in its version is no slip of it (Misspelt).
package models
