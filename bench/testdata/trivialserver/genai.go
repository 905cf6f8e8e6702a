//go:build linkgenai

package main

// Built with -tags linkgenai, the trivial server links genai, and with it
// everything genai imports, without using it: what is left is what linking
// them costs a process's start (their package init, a bigger binary).
import _ "google.golang.org/genai"
