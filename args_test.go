package main

import (
	"strings"
	"testing"
)

func TestNormalizeArgs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"flag after name", "wr capture sb --ansi", "wr capture --ansi sb"},
		{"value flag after name", "wr wait x --timeout 10s", "wr wait --timeout 10s x"},
		{"socket after the verb", "wr ls --socket /s", "wr --socket /s ls"},
		{"socket= after the name", "wr has x --socket=/s", "wr --socket=/s has x"},
		{"unknown flag moves to be named", "wr kill sb --al", "wr kill --al sb"},
		{"send keeps dashed text", "wr send x ls -la --enter", "wr send --enter x ls -la"},
		{"send stdin", "wr send x - --timeout 0", "wr send --timeout 0 x -"},
		{"send names a mistyped flag before the text", "wr send x --entre echo hi", "wr send --entre x echo hi"},
		{"send keeps a --word once the text began", "wr send x ls --color", "wr send x ls --color"},
		{"send keeps text that only starts like a flag", "wr send x --> --", "wr send x --> --"},
		{"nothing after --", "wr new -d x -- sh -c --all", "wr new -d x -- sh -c --all"},
		{"subcommand", "wr server status --socket /s", "wr --socket /s server status"},
		{"short alias", "wr attach x -d", "wr attach -d x"},
		{"global flags before the verb stay", "wr --socket /s capture x --ansi", "wr --socket /s capture --ansi x"},
		{"unknown verb", "wr lss -x", "wr lss -x"},
		{"help of a verb with subcommands", "wr help server", "wr server --help"},
		{"help of a subcommand", "wr help server stop", "wr server stop --help"},
		{"h of a verb with subcommands", "wr h server", "wr server --help"},
		{"help of a verb", "wr help attach", "wr help attach"},
	}
	notFound := ""
	app := newApp(&notFound)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(normalizeArgs(app, strings.Fields(tt.in)), " ")
			if got != tt.want {
				t.Errorf("normalizeArgs(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	verbs := []string{"attach", "new", "ls", "kill", "send", "capture", "wait", "detach", "rename"}
	tests := []struct{ word, want string }{
		{"lss", "ls"},
		{"atach", "attach"},
		{"captur", "capture"},
		{"renmae", "rename"},
		{"xyzzy", ""},
		{"ATTACH", "attach"},
	}
	for _, tt := range tests {
		if got := closest(tt.word, verbs); got != tt.want {
			t.Errorf("closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}
