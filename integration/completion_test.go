//go:build linux

package integration

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// completeIn runs a real shell (bash, zsh, fish) with wr's completion
// script loaded and asks it to complete line (the cursor at its end);
// it returns the candidates, one a line, and what the shell wrote on
// stderr.
func completeIn(e *env, shell, line string) ([]string, string) {
	e.t.Helper()
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	var script string
	switch shell {
	case "bash":
		script = `source <(wr completion bash) && COMP_WORDS=(` + strings.Join(quoted, " ") + `) && COMP_CWORD=` +
			strconv.Itoa(len(words)-1) + `; _wr; printf '%s\n' "${COMPREPLY[@]}"`
	case "zsh":
		// zsh runs the bash function through bashcompinit, which calls it
		// in sh emulation (arrays from 0), as this does.
		script = `autoload -U compinit && compinit -u -D && source <(wr completion zsh) && ` +
			`[[ $_comps[wr] == "_bash_complete -F _wr" ]] || { echo "wr is not completed by _wr" >&2; exit 1; }; ` +
			`f() { emulate -L sh; setopt kshglob noshglob braceexpand; COMP_WORDS=(` + strings.Join(quoted, " ") + `); COMP_CWORD=` +
			strconv.Itoa(len(words)-1) + `; _wr; print -l -- "${COMPREPLY[@]}"; }; f`
	case "fish":
		script = `wr completion fish | source; complete -C '` + line + `'`
	}
	args := []string{"-c", script}
	if shell == "zsh" {
		args = append([]string{"-f"}, args...)
	}
	cmd := exec.Command(shell, args...)
	cmd.Env = append(e.with(), "PATH="+filepath.Dir(wrBin)+":"+strings.TrimPrefix(e.vars[0], "PATH="))
	cmd.Dir = e.dir
	r, err := runCmd(cmd)
	if err != nil || r.code != 0 {
		e.t.Fatalf("%s completing %q: %v, exit %d, stderr %q", shell, line, err, r.code, r.stderr)
	}
	var got []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			name, _, _ := strings.Cut(l, "\t") // fish adds a description
			// zsh's compgen (bashcompinit) leaves matching the word typed
			// so far to compadd, which this does as zsh would.
			if shell == "zsh" && !strings.HasPrefix(name, words[len(words)-1]) {
				continue
			}
			got = append(got, name)
		}
	}
	return got, r.stderr
}

// Item 7: wr completion bash|zsh|fish prints a script that a real shell
// loads and that completes verbs, flags and the names of live sessions,
// asked of the server at completion time; with no server there are no
// names and no error.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("%s is not installed", shell)
			}
			e := newEnv(t)
			if got, stderr := completeIn(e, shell, "wr attach "); len(got) != 0 || stderr != "" {
				t.Errorf("wr attach <TAB> with no server: %q, stderr %q; want nothing", got, stderr)
			}
			e.mustWr("new", "-d", "alpha", "--", "sh")
			e.mustWr("new", "-d", "beta", "--", "sh")
			for _, tt := range []struct {
				line string
				want []string
			}{
				{"wr attach ", []string{"alpha", "beta"}},
				{"wr kill alpha ", []string{"alpha", "beta"}},
				{"wr capture --a", []string{"--ansi"}},
				{"wr a", []string{"attach"}},
				{"wr completion ", []string{"bash", "fish", "zsh"}},
			} {
				got, stderr := completeIn(e, shell, tt.line)
				slices.Sort(got)
				if !slices.Equal(got, tt.want) || stderr != "" {
					t.Errorf("%q<TAB>: %q, stderr %q; want %q", tt.line, got, stderr, tt.want)
				}
			}
		})
	}
}
