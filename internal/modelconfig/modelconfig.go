// Package modelconfig resolves a model name through the settings'
// modelConfigs (aliases, customAliases, overrides, customOverrides) to
// the model a request goes to and the generation config it carries, as
// Gemini CLI 0.61's ModelConfigService does (bundle
// chunk-JDPZ4CE3.js:340266-340640): the alias's extends chain merged from
// root to leaf, then every matching override, broadest first.
package modelconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
)

// MaxAliasDepth bounds an alias's extends chain, as 0.61's
// MAX_ALIAS_CHAIN_DEPTH.
const MaxAliasDepth = 100

// Config is a modelConfig: the model, "" for none, and the
// generateContentConfig, as the settings spell it.
type Config struct {
	Model                 string         `json:"model"`
	GenerateContentConfig map[string]any `json:"generateContentConfig"`
}

// Alias is a named config, over the one it extends.
type Alias struct {
	Extends     string `json:"extends"`
	ModelConfig Config `json:"modelConfig"`
}

// Override is a config laid over every request its Match matches.
type Override struct {
	Match       map[string]any `json:"match"`
	ModelConfig Config         `json:"modelConfig"`
}

// Key is what a request is resolved for: 0.61's ModelConfigKey.
type Key struct {
	// Model is the model or alias asked for.
	Model string
	// IsChatModel: the conversation's own request, which a model with no
	// alias of its own makes with chat-base's config.
	IsChatModel bool
	// OverrideScope is the subagent's name; "" for the main agent.
	OverrideScope string
	// IsRetry: the request retries an answer that broke off.
	IsRetry bool
}

// Resolved is a request's model and generation config.
type Resolved struct {
	Model                 string
	GenerateContentConfig map[string]any
	// Set says the user's settings took part: the model is, or extends,
	// one of their aliases, or one of their overrides matched. Otherwise
	// the built-in configs alone made it, and gemini-ls keeps its own.
	Set bool
}

// Set is the aliases and overrides a request is resolved through.
type Set struct {
	aliases   map[string]Alias
	overrides []Override
	// users are the names of aliases the settings define or change.
	users map[string]bool
}

// New is the set 0.61 resolves through, from the settings: aliases
// merged key by key into the built-in ones (as 0.61's settings layer
// over its schema's default), customAliases replacing them by name, and
// the overrides then customOverrides. An alias that cannot be read is
// left out, with an error naming it; the rest is kept.
func New(aliases map[string]any, customAliases map[string]Alias, overrides, customOverrides []Override) (*Set, error) {
	var builtIn map[string]any
	if err := json.Unmarshal([]byte(defaultAliases), &builtIn); err != nil {
		return nil, fmt.Errorf("reading the built-in model configs: %w", err)
	}
	merged := deepMerge(builtIn, aliases)
	s := &Set{aliases: map[string]Alias{}, users: map[string]bool{}}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(merged)) {
		a, err := decodeAlias(merged[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("modelConfigs.aliases.%s: %w", name, err))
			continue
		}
		s.aliases[name] = a
	}
	for name := range aliases {
		s.users[name] = true
	}
	for name, a := range customAliases {
		s.aliases[name] = a
		s.users[name] = true
	}
	s.overrides = append(slices.Clone(overrides), customOverrides...)
	return s, errors.Join(errs...)
}

// FromSettings is New from the settings' values as the files hold them:
// each custom alias and override is read on its own, and one that cannot
// be is left out with an error naming it, the rest kept.
func FromSettings(aliases, customAliases map[string]any, overrides, customOverrides []any) (*Set, error) {
	var errs []error
	custom := map[string]Alias{}
	for _, name := range slices.Sorted(maps.Keys(customAliases)) {
		a, err := decodeAlias(customAliases[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("modelConfigs.customAliases.%s: %w", name, err))
			continue
		}
		custom[name] = a
	}
	over, err := decodeOverrides("modelConfigs.overrides", overrides)
	errs = append(errs, err)
	customOver, err := decodeOverrides("modelConfigs.customOverrides", customOverrides)
	errs = append(errs, err)
	s, err := New(aliases, custom, over, customOver)
	return s, errors.Join(append(errs, err)...)
}

func decodeOverrides(key string, list []any) ([]Override, error) {
	var out []Override
	var errs []error
	for i, v := range list {
		var o Override
		if err := decode(v, &o); err != nil {
			errs = append(errs, fmt.Errorf("%s[%d]: %w", key, i, err))
			continue
		}
		out = append(out, o)
	}
	return out, errors.Join(errs...)
}

// decodeAlias reads one alias from its settings' JSON value.
func decodeAlias(v any) (Alias, error) {
	var a Alias
	err := decode(v, &a)
	return a, err
}

// decode reads a settings' JSON value into out, by exact member names
// as Gemini CLI reads it.
func decode(v, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return jsjson.Decode(raw, out)
}

// Resolve is the model and generation config of a request for k, as
// 0.61's getResolvedConfig: it fails on an alias chain that names a
// missing alias, loops, or is deeper than MaxAliasDepth, and when no
// model results.
func (s *Set) Resolve(k Key) (Resolved, error) {
	chain, base, err := s.aliasChain(k.Model, k.IsChatModel)
	if err != nil {
		return Resolved{}, err
	}
	levels := map[string]int{}
	if base.Model != "" {
		levels[base.Model] = 0
	}
	for i, name := range chain {
		levels[name] = i + 1
	}
	out := Resolved{Model: base.Model, GenerateContentConfig: base.GenerateContentConfig}
	for _, name := range chain {
		out.Set = out.Set || s.users[name]
	}
	for _, m := range s.matching(k, levels) {
		out.Model = cmpOr(m.ModelConfig.Model, out.Model)
		out.GenerateContentConfig = deepMerge(out.GenerateContentConfig, m.ModelConfig.GenerateContentConfig)
		out.Set = true
	}
	if out.GenerateContentConfig == nil {
		out.GenerateContentConfig = map[string]any{}
	}
	if out.Model == "" {
		return Resolved{}, fmt.Errorf("could not resolve a model name for alias %q: its alias chain or a matching override must name a model", k.Model)
	}
	return out, nil
}

// aliasChain is the chain of aliases from root to leaf that model
// resolves through and the config they merge to; a model with no alias
// is its own chain, under chat-base's for a chat request (0.61's
// resolveAliasChain).
func (s *Set) aliasChain(model string, chat bool) ([]string, Config, error) {
	if _, ok := s.aliases[model]; ok {
		return s.extendsChain(model)
	}
	if _, ok := s.aliases["chat-base"]; ok && chat {
		chain, cfg, err := s.extendsChain("chat-base")
		if err != nil {
			return nil, Config{}, err
		}
		return append(chain, model), Config{Model: model, GenerateContentConfig: cfg.GenerateContentConfig}, nil
	}
	return []string{model}, Config{Model: model}, nil
}

// extendsChain follows name's extends to the root, bounded, and merges
// the configs from the root down.
func (s *Set) extendsChain(name string) ([]string, Config, error) {
	var chain []string
	for current := name; current != ""; current = s.aliases[current].Extends {
		if _, ok := s.aliases[current]; !ok {
			return nil, Config{}, fmt.Errorf("alias %q not found (in the extends chain of %q)", current, name)
		}
		if len(chain) >= MaxAliasDepth {
			return nil, Config{}, fmt.Errorf("the extends chain of alias %q is deeper than %d", name, MaxAliasDepth)
		}
		if slices.Contains(chain, current) {
			return nil, Config{}, fmt.Errorf("circular alias dependency: %s -> %s", strings.Join(chain, " -> "), current)
		}
		chain = append(chain, current)
	}
	slices.Reverse(chain)
	var cfg Config
	for _, n := range chain {
		c := s.aliases[n].ModelConfig
		cfg.Model = cmpOr(c.Model, cfg.Model)
		cfg.GenerateContentConfig = deepMerge(cfg.GenerateContentConfig, c.GenerateContentConfig)
	}
	return chain, cfg, nil
}

// matched is an override that matches a request, with what orders it.
type matched struct {
	Override
	level, specificity, index int
}

// matching are the overrides that match k, in the order they apply:
// by level (the model itself 0, then its aliases from the root down),
// then by how many keys they match, then as written (0.61's
// findMatchingOverrides and sortOverrides).
func (s *Set) matching(k Key, levels map[string]int) []matched {
	var out []matched
	for i, o := range s.overrides {
		if len(o.Match) == 0 {
			continue
		}
		level, ok := matchLevel(o.Match, k, levels)
		if ok {
			out = append(out, matched{Override: o, level: level, specificity: len(o.Match), index: i})
		}
	}
	slices.SortStableFunc(out, func(a, b matched) int {
		if a.level != b.level {
			return a.level - b.level
		}
		if a.specificity != b.specificity {
			return a.specificity - b.specificity
		}
		return a.index - b.index
	})
	return out
}

// matchLevel reports whether every key of match holds for k, and the
// level of the model it names (0 when it names none).
func matchLevel(match map[string]any, k Key, levels map[string]int) (int, bool) {
	level := 0
	for key, want := range match {
		switch key {
		case "model":
			name, isName := want.(string)
			l, ok := levels[name]
			if !isName || !ok {
				return 0, false
			}
			level = l
		case "overrideScope":
			if want == "core" && k.OverrideScope == "" {
				continue // 0.61: "core" is the main agent, unscoped
			}
			if want != k.OverrideScope || k.OverrideScope == "" {
				return 0, false
			}
		case "isChatModel":
			// 0.61's key has the field only when true: false never matches.
			if want != true || !k.IsChatModel {
				return 0, false
			}
		case "isRetry":
			if want != true || !k.IsRetry {
				return 0, false
			}
		default:
			// 0.61 compares with a field of the request's key that
			// gemini-ls's requests do not have.
			return 0, false
		}
	}
	return level, true
}

// deepMerge is over laid on base, objects merged key by key and anything
// else replaced, in a new map (0.61's genericDeepMerge).
func deepMerge(base, over map[string]any) map[string]any {
	if base == nil && over == nil {
		return nil
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]any{}
	}
	for key, v := range over {
		bm, bok := out[key].(map[string]any)
		om, ook := v.(map[string]any)
		if bok && ook {
			out[key] = deepMerge(bm, om)
			continue
		}
		out[key] = v
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
